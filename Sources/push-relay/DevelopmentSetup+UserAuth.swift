import Foundation
import RelayCore
import RelayCrypto

extension DevelopmentSetup {
    /// The file, in the data directory, of the P-256 key that signs the development app's user tokens
    /// (`push-relay keys user-token --key <it>`), so a client library is tried with user credentials.
    static let userKeyFile = "dev-user-key.pem"
    /// Its public half, which the development app's `userAuth.jwt` verifies with.
    static let userPublicKeyFile = "dev-user-key.pub.pem"

    /// The development app's user credentials: ES256 JWTs signed by ``userKeyFile`` (made on first use).
    func userAuth() throws -> Configuration.UserAuth {
        let key = try ES256Key(
            privateKeyPEM: try secretFile(Self.userKeyFile) { try ES256Key.generate().privateKeyPEM ?? "" }
        )
        let publicFile = try writeSecretFile(Self.userPublicKeyFile, Data(key.publicKeyPEM.utf8))
        return Configuration.UserAuth(jwt: .init(publicKeyFiles: [publicFile], algorithms: [.es256]))
    }

    /// The command that makes a user token for the development app, for `serve` to print: this program as it
    /// was started (`.build/release/push-relay` under `make run`, which is not on the PATH).
    var userTokenCommand: String {
        let program = CommandLine.arguments.first.flatMap { $0.isEmpty ? nil : $0 } ?? "push-relay"
        return "\(program) keys user-token --key \(dataDirectory)/\(Self.userKeyFile) --user <id>"
    }
}
