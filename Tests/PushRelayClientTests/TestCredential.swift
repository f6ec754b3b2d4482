import Foundation
import PushRelayClient
import RelayTestSupport
import Synchronization

/// The user credentials the tests' clients send: the one place that makes them. The test relay's app
/// trusts ``RelayTestSupport/UserTokenIssuer/shared``'s JWTs (`apps[].userAuth`).
enum TestCredential {
    /// A credential the relay accepts for `userId`: a JWT of the test issuer, the same one each time it is
    /// asked for (ES256 signatures differ on every signing), so tests can compare what was sent.
    static func valid(for userId: String, in relay: LiveRelay) -> String {
        issued.withLock { issued in
            if let token = issued[userId] { return token }
            // The issuer signs with a key it made itself; signing fails only if OpenSSL does.
            let token = (try? UserTokenIssuer.shared.token(for: userId)) ?? ""
            issued[userId] = token
            return token
        }
    }

    private static let issued = Mutex<[String: String]>([:])

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
