import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Sends ``RelayCall``s as the user: asks for the credential, refreshes it once after a 401, and retries
/// 429, 5xx (but 501 and 505, which say the request itself is wrong) and network failures by the
/// ``PushRelayClient/RetryPolicy``.
struct RelayTransport: Sendable {
    /// Waits the given seconds; throws `CancellationError` when the task is cancelled.
    typealias Sleep = @Sendable (TimeInterval) async throws -> Void

    /// `Task.sleep` in nanoseconds (the `Duration` form needs iOS 16), at most a day (a wait the policy caps
    /// there, so the conversion never traps).
    static let taskSleep: Sleep = { seconds in
        let capped = min(max(0, seconds), PushRelayClient.RetryPolicy.longestDelay)
        try await Task.sleep(nanoseconds: UInt64(capped * 1_000_000_000))
    }

    /// URLSession failures that may pass when tried again; the others (a bad URL, a certificate the system
    /// does not trust, cancellation) would fail the same way.
    private static let transientFailures: Set<URLError.Code> = [
        .timedOut, .cannotFindHost, .cannotConnectToHost, .networkConnectionLost, .dnsLookupFailed,
        .notConnectedToInternet, .badServerResponse, .resourceUnavailable, .dataNotAllowed,
        .internationalRoamingOff, .callIsActive, .secureConnectionFailed,
    ]

    let baseURL: URL
    let appId: String
    let session: URLSession
    let retry: PushRelayClient.RetryPolicy
    let credential: PushRelayClient.Credential
    let sleep: Sleep

    /// Sends `call` until it succeeds (2xx, or the relay's own 404 when ``RelayCall/notFoundIsDone``) or fails
    /// for good.
    ///
    /// - Throws: ``PushRelayError``; `CancellationError` when the task is cancelled while waiting.
    func send(_ call: RelayCall) async throws -> RelayAnswer {
        var bearer = try await userCredential(refresh: false)
        var refreshed = false
        var attempt = 1
        while true {
            let failure: PushRelayError
            let retryable: Bool
            do {
                let request = try call.request(
                    baseURL: baseURL,
                    appId: appId,
                    bearer: bearer,
                    timeout: retry.requestTimeout
                )
                let answer = try await exchange(request)
                if (200..<300).contains(answer.status)
                    || (call.notFoundIsDone && answer.status == 404 && answer.error.code == .notFound)
                {
                    return answer
                }
                if answer.status == 401 && !refreshed {
                    refreshed = true
                    bearer = try await userCredential(refresh: true)
                    continue
                }
                failure = answer.error
                retryable = Self.mayPassLater(status: answer.status)
            } catch let error as URLError {
                if error.code == .cancelled { throw CancellationError() }
                failure = PushRelayError(
                    code: .network,
                    message:
                        "no answer from the relay (URLError \(error.code.rawValue)): \(error.localizedDescription)",
                    cause: error
                )
                retryable = Self.transientFailures.contains(error.code)
            }
            guard retryable,
                let delay = retry.delay(
                    afterAttempt: attempt,
                    retryAfter: failure.retryAfter,
                    jitter: Double.random(in: 0...1)
                )
            else { throw failure }
            try await sleep(delay)
            attempt += 1
        }
    }

    /// 429, and 5xx but 501 (Not Implemented) and 505 (HTTP Version Not Supported), which the same request
    /// would get again.
    static func mayPassLater(status: Int) -> Bool {
        status == 429 || ((500...599).contains(status) && status != 501 && status != 505)
    }

    /// One attempt: the status, body and `Retry-After` of the answer.
    private func exchange(_ request: URLRequest) async throws -> RelayAnswer {
        let (body, response) = try await session.data(for: request)
        guard let http = response as? HTTPURLResponse else {
            throw PushRelayError(code: .unexpectedResponse, message: "the answer is not HTTP")
        }
        return RelayAnswer(
            status: http.statusCode,
            body: body,
            retryAfter: RetryAfter.seconds(http.value(forHTTPHeaderField: "Retry-After"), now: Date())
        )
    }

    private func userCredential(refresh: Bool) async throws -> String {
        do { return try await credential(refresh) } catch is CancellationError { throw CancellationError() } catch {
            throw PushRelayError(
                code: .credentialUnavailable,
                message: "the credential closure failed\(refresh ? " to refresh after a 401" : ""): \(error)",
                cause: error
            )
        }
    }
}
