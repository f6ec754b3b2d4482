import Foundation
import RelayCore
import RelayCrypto
import RelayHTTP

extension RelayAPI {
    /// Checks the `X-PushRelay-Signature` of a backend's call to `app` when it has `webhookSecret`: one header,
    /// within the replay window, matching the body with one of the app's
    /// ``RelayCore/Configuration/App/acceptedWebhookSecrets`` (``RelayCrypto/WebhookSignature``).
    /// - Returns: the signed timestamp, which with the body names this one signed request; nil for an app
    ///   without `webhookSecret` (nothing checked).
    /// - Throws: ``HTTPError`` 401 `invalid_signature` saying why; 400 `conflicting_headers` for two headers
    ///   (which of them decides would depend on who reads them).
    @discardableResult
    func verifiedSignature(_ request: HTTPRequest, of app: Configuration.App) throws(HTTPError) -> Int? {
        let secrets = app.acceptedWebhookSecrets
        guard !secrets.isEmpty else { return nil }
        let values = request.headers.values(for: WebhookSignature.header)
        guard values.count <= 1 else {
            throw HTTPError(
                status: 400,
                code: "conflicting_headers",
                message: "The request has more than one \(WebhookSignature.header) header"
            )
        }
        do {
            return try WebhookSignature.verify(values.first, body: request.body, secrets: secrets, now: time.now)
        } catch { throw HTTPError(status: 401, code: "invalid_signature", message: error.description) }
    }
}
