import Foundation
import RelayCore
import RelayCrypto

/// A service account the mock FCM accepts assertions from: who it is, the public key that checks its
/// signatures, and the project it may send to.
public struct MockFCMAccount: Sendable {
    /// `client_email`: the assertion's `iss`.
    public var clientEmail: String
    /// `private_key_id`: the assertion's `kid`.
    public var keyId: String
    /// Verifies the assertion's RS256 signature.
    public var publicKey: PublicKey
    /// The project whose `messages:send` its access tokens may call.
    public var projectId: String

    public init(clientEmail: String, keyId: String, publicKey: PublicKey, projectId: String) {
        self.clientEmail = clientEmail
        self.keyId = keyId
        self.publicKey = publicKey
        self.projectId = projectId
    }

    /// The account a key file describes, its public key taken from the file's private key.
    /// - Throws: `CryptoError` when `private_key` is not an RSA key of 2048 bits or more.
    public init(serviceAccount: FCMServiceAccount) throws(CryptoError) {
        self.init(
            clientEmail: serviceAccount.clientEmail,
            keyId: serviceAccount.privateKeyId,
            publicKey: try RS256Key(privateKeyPEM: serviceAccount.privateKey).publicKey,
            projectId: serviceAccount.projectId
        )
    }

    /// A new service account for tests and development: a fresh RSA key, an id and address made up for
    /// `projectId` (the address with a part of the id, so accounts made for one project differ: the token
    /// endpoint tells accounts apart by it), and `tokenURI` (the mock's: `<base URL>/token`).
    /// - Throws: `CryptoError` when OpenSSL cannot make the key.
    public static func makeServiceAccount(projectId: String, tokenURI: String) throws(CryptoError) -> FCMServiceAccount
    {
        let key = try RS256Key.generate()
        let keyId = try Digest.randomBytes(20).hexString
        return FCMServiceAccount(
            projectId: projectId,
            privateKeyId: keyId,
            privateKey: key.privateKeyPEM,
            clientEmail: "push-relay-\(keyId.prefix(8))@\(projectId).iam.gserviceaccount.com",
            tokenURI: tokenURI
        )
    }
}
