import Foundation
import RelayCore
import RelayCrypto
import RelayHTTP
import RelayStore
import RelayStrictJSON

extension RelayAPI {
    /// The path of Ditto's change events over HTTP (webhook data bridges, scripts, replays).
    static let dittoEventsPath = "/v1/ditto/events"

    /// Who may post an app's Ditto events, decided from the headers alone: `Authorization: Bearer` with a
    /// secret whose SHA-256 is in an app's `ditto.ingestSecretSHA256` (that app), else with an app's API key.
    /// Every configured hash is compared in constant time.
    /// - Returns: the app, and whether the API key named it (then its `webhookSecret` signature is required).
    /// - Throws: ``HTTPError`` 401 `unauthorized` for a missing, malformed or unknown credential, or one sent
    ///   with `X-PushRelay-App` (the last two counted against `client`:
    ///   ``AppDirectory/refusedKey(client:message:)``, 429 past the limit); 409 `ditto_not_configured` for an
    ///   app without `apps[].ditto`.
    func dittoIngestApp(
        _ headers: HTTPHeaders,
        client: String
    ) throws(HTTPError) -> (app: Configuration.App, byAPIKey: Bool) {
        let bearer = try AppDirectory.bearer(headers, naming: "ingest secret or api key")
        // As on every other route, a caller naming an app is taken for a user, and a user posts no events.
        guard headers.trimmedValues(for: AppDirectory.appHeader).isEmpty else {
            throw directory.refusedKey(
                client: client,
                message: "Ditto events take an ingest secret or an API key, sent without X-PushRelay-App"
            )
        }
        var bySecret: Configuration.App?
        var byKey: Configuration.App?
        for app in directory.apps {
            if let ditto = app.ditto, APIKey.matches(bearer, anyOf: ditto.ingestSecretSHA256) {
                bySecret = bySecret ?? app
            }
            if APIKey.matches(bearer, anyOf: app.apiKeySHA256) { byKey = byKey ?? app }
        }
        guard let app = bySecret ?? byKey else {
            throw directory.refusedKey(client: client, message: "The ingest secret or API key is not valid")
        }
        guard app.ditto != nil else {
            throw HTTPError(
                status: 409,
                code: "ditto_not_configured",
                message: "App '\(app.id)' has no apps[].ditto: it takes no Ditto events"
            )
        }
        return (app, bySecret == nil)
    }

    /// The header check of `POST /v1/ditto/events`: the caller before the body, and the app's body limit
    /// (`apps[].ditto.maxBodyBytes`, else `http.maxBodyBytes`).
    /// The caller goes on with the request (``HTTPRequest/headerNote``), so that ``dittoEvents(_:)`` does not
    /// read it again.
    func dittoEventsHeaderCheck(_ headers: HTTPHeaders, client: String) -> HeaderVerdict {
        .checking { () throws(HTTPError) in
            let caller = try dittoIngestApp(headers, client: client)
            return .proceed(maxBodyBytes: caller.app.ditto?.maxBodyBytes, note: caller)
        }
    }

    /// `POST /v1/ditto/events`: one event, a JSON array of events, or NDJSON (`Content-Type:
    /// application/x-ndjson`), at most ``DittoEvent/maximumPerRequest``, applied in ONE transaction; answers
    /// 200 `{"applied","duplicates","ignored","notifications"}` after the commit.
    /// - Throws: ``HTTPError`` 401 / 409 as ``dittoIngestApp(_:)``; 401 `invalid_signature` for the API key
    ///   of an app with `webhookSecret` without a valid signature; 415 `unsupported_media_type` for a
    ///   `Content-Type` neither JSON nor NDJSON; 400 `invalid_event` naming the first bad event's index (nothing
    ///   applied).
    func dittoEvents(_ request: HTTPRequest) async throws -> HTTPResponse {
        let noted = request.headerNote as? (app: Configuration.App, byAPIKey: Bool)
        let (app, byAPIKey) = try noted ?? dittoIngestApp(request.headers, client: request.clientAddress)
        guard let ditto = app.ditto else { throw HTTPError.internal() }
        if byAPIKey { try verifiedSignature(request, of: app) }
        let mediaType = request.headers["content-type"].map(HTTPRequest.mediaType(of:))
        let ndjson = mediaType == "application/x-ndjson"
        if let mediaType, !ndjson, !HTTPRequest.isJSONMediaType(mediaType) {
            throw HTTPError.unsupportedMediaType(
                message: "Content-Type must be application/json or application/x-ndjson"
            )
        }
        let events: [DittoEvent]
        do {
            events = try DittoEvent.decodeRequest(
                request.body,
                ndjson: ndjson,
                strictSyntax: StrictJSON.requestBodyProblem
            )
        } catch {
            throw HTTPError.badRequest(code: "invalid_event", message: error.description)
        }
        let settings = DittoApplySettings(app: app, ditto: ditto)
        let counts = try await store.applyDittoEvents(events, appId: app.id, settings: settings, at: time.now)
        counts.report(app: app.id, settings: settings, metrics: metrics, logger: logger)
        return try HTTPResponse.json(DittoEventsAnswer(counts))
    }
}
