import FCMCore
import Foundation
import RelayCLI
import RelayCore
import RelayFCM

extension SendCommand {
    /// `send --platform android`: one message to FCM HTTP v1, authorized by a service account; prints FCM's
    /// answer with the token's fate (``FCMDecision``) and exits 0 only when FCM accepted it.
    static func sendFCM(_ arguments: Arguments) async throws -> Int32 {
        let message = try fcmMessage(from: arguments)
        let client = try FCMClient(configuration: try fcmConfiguration(from: arguments))
        let result: FCMResult
        do {
            result = FCMResult(try await client.send(message))
        } catch let refused as FCMMessageError {
            result = FCMResult(error: "refused_locally", reason: "\(refused.code)", message: refused.message)
        } catch let refused as AccessTokenError {
            result = FCMResult(error: "access_token_refused", reason: refused.error, message: refused.description)
        } catch {
            result = FCMResult(error: "not_delivered", reason: nil, message: "\(error)")
        }
        await client.shutdown()
        try printJSON(result)
        return result.status == 200 ? 0 : 1
    }

    /// What `send --platform android` prints: FCM's answer, or why there was none.
    ///
    /// Accepted: `{"fate":"delivered","name":"projects/p/messages/0:…","status":200}`. Refused:
    /// `{"errorCode":"UNREGISTERED","errorStatus":"NOT_FOUND","fate":"retire","message":"…","status":404}`.
    /// No answer: `error` (`refused_locally`, `access_token_refused`, `not_delivered`), `reason`, `message`.
    struct FCMResult: Encodable {
        /// The HTTP status FCM answered.
        var status: Int?
        /// The message's name, on 200.
        var name: String?
        /// The `errorCode` of FCM's `FcmError` detail, e.g. `UNREGISTERED`.
        var errorCode: String?
        /// The `google.rpc` status, e.g. `NOT_FOUND`, `UNAUTHENTICATED`.
        var errorStatus: String?
        /// The fields FCM's `BadRequest` detail names, e.g. `message.token`.
        var fields: [String]?
        /// FCM's `Retry-After`, in SECONDS.
        var retryAfterSeconds: Int64?
        /// What the relay would do with the token: `delivered`, `retire`, `retry` or `fail`.
        var fate: String?
        /// Why, for `fail`: `rejected`, `configuration`, ...
        var failure: String?
        var error: String?
        var reason: String?
        /// FCM's error message, or what went wrong before an answer.
        var message: String?

        init(_ response: FCMResponse) {
            status = response.status
            name = response.name
            errorCode = response.errorCode?.description
            errorStatus = response.errorStatus
            message = response.message
            fields = response.violatedFields.isEmpty ? nil : response.violatedFields
            retryAfterSeconds = response.retryAfter?.components.seconds
            (fate, failure) = SendCommand.fate(
                of: FCMDecision.decide(.answered(response), attempts: 1, policy: RetryPolicy(), random: 0)
            )
        }

        init(error: String, reason: String?, message: String) {
            self.error = error
            self.reason = reason
            self.message = message
        }
    }

    /// The message the options describe.
    /// - Throws: ``Arguments/Problem`` for a missing or malformed `--token`, a `--data` entry that is not
    ///   `KEY=VALUE`, names a reserved key or a key twice, or a `--ttl` outside 0...28 days.
    static func fcmMessage(from arguments: Arguments) throws(Arguments.Problem) -> FCMMessage {
        let tokenText = try arguments.required("token")
        let token: FCMRegistrationToken
        do { token = try FCMRegistrationToken(parsing: tokenText) } catch {
            throw Arguments.Problem(description: "--token: \(error.description)")
        }
        var data: [String: String] = [:]
        for entry in arguments.values("data") {
            guard let equals = entry.firstIndex(of: "="), equals != entry.startIndex else {
                throw Arguments.Problem(description: "--data '\(entry)' must be KEY=VALUE")
            }
            let key = String(entry[..<equals])
            guard !FCMLimits.isReservedDataKey(key) else {
                throw Arguments.Problem(description: "--data key '\(key)' is reserved by FCM")
            }
            guard data[key] == nil else { throw Arguments.Problem(description: "--data key '\(key)' is given twice") }
            data[key] = String(entry[entry.index(after: equals)...])
        }
        let ttl = try arguments.integer("ttl", default: 86400)!
        guard (0...FCMLimits.maxTTLSeconds).contains(ttl) else {
            throw Arguments.Problem(description: "--ttl must be 0 to \(FCMLimits.maxTTLSeconds) seconds, got \(ttl)")
        }
        return FCMMessage(
            token: token,
            title: arguments.value("title"),
            body: arguments.value("body") ?? defaultBody,
            data: data,
            ttlSeconds: ttl,
            tag: arguments.value("tag")
        )
    }

    /// The client settings the options describe: the service account, the project, the endpoint (Google's
    /// without `--endpoint`) and the timeout.
    /// - Throws: ``Arguments/Problem`` for a missing or unusable `--service-account` file, a `--project-id`
    ///   that is not a project id, `--ca` without `--endpoint`, or an endpoint that is not an http(s) URL.
    static func fcmConfiguration(from arguments: Arguments) throws(Arguments.Problem) -> FCMClientConfiguration {
        guard let path = arguments.value("service-account") else {
            throw Arguments.Problem(
                description: "--service-account FILE is required with --platform android (a service account key file)"
            )
        }
        let account: FCMServiceAccount
        do { account = try FCMServiceAccount(contentsOfFile: path) } catch {
            throw Arguments.Problem(description: error.description)
        }
        let projectId = arguments.value("project-id")
        if let projectId, !FCMServiceAccount.isValidProjectId(projectId) {
            throw Arguments.Problem(description: "--project-id '\(projectId)' is not a project id")
        }
        let endpoint: FCMClientConfiguration.Endpoint
        if let url = arguments.value("endpoint") {
            endpoint = .custom(baseURL: url, caFile: arguments.value("ca"))
        } else if arguments.value("ca") != nil {
            throw Arguments.Problem(description: "--ca is for a server given with --endpoint")
        } else {
            endpoint = .production
        }
        var configuration = FCMClientConfiguration(endpoint: endpoint, serviceAccount: account, projectId: projectId)
        configuration.requestTimeout = .seconds(try arguments.positiveInteger("timeout", default: 30))
        let problems = configuration.problems()
        guard problems.isEmpty else { throw Arguments.Problem(description: problems.joined(separator: "; ")) }
        return configuration
    }
}
