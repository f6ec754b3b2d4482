import Foundation
import PushRelayClient
import Synchronization

/// The user credentials the tests' clients send: the one place that makes them.
///
/// Today's relay authenticates `/v1` calls by the app's API key alone and ignores `X-PushRelay-App`, so the
/// key stands in for a user's token. Once the relay verifies user credentials (`apps[].userAuth`), ``valid``
/// returns a token for `userId` that the test relay's configuration trusts (a JWT signed by a test key).
enum TestCredential {
    /// A credential the relay accepts for `userId`.
    static func valid(for userId: String, in relay: LiveRelay) -> String {
        relay.apiKey
    }

    /// A credential the relay refuses with 401, as an expired or revoked token is.
    static let refused = "expired-or-revoked-credential"
}

/// A credential closure that records each call's `refresh` flag and answers by a rule.
final class CredentialLog: Sendable {
    private let calls = Mutex<[Bool]>([])
    private let answer: @Sendable (_ refresh: Bool) -> String

    init(answer: @escaping @Sendable (_ refresh: Bool) -> String) {
        self.answer = answer
    }

    /// The `refresh` flag of each call so far, in order.
    var refreshFlags: [Bool] { calls.withLock { $0 } }

    var closure: PushRelayClient.Credential {
        { [self] refresh in
            calls.withLock { $0.append(refresh) }
            return answer(refresh)
        }
    }
}
