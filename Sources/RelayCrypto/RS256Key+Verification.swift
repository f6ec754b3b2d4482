import Foundation

extension RS256Key {
    /// Reads a PEM public key (`BEGIN PUBLIC KEY`), or takes the public half of a PEM private key.
    /// - Throws: ``CryptoError`` `.invalidKey` when the text holds no RSA key of 2048 bits or more.
    public convenience init(publicKeyPEM pem: String) throws(CryptoError) {
        if pem.contains("PRIVATE KEY") {
            let publicPEM = try RS256Key(privateKeyPEM: pem).publicKeyPEM
            try self.init(publicKeyPEM: publicPEM)
            return
        }
        try self.init(pkey: EVPKey.readPublic(pem: pem), isPrivate: false)
    }

    /// Checks an RSASSA-PKCS1-v1_5 / SHA-256 signature over `message`. Anything malformed is simply `false`.
    public func verify(signature: some DataProtocol, for message: some DataProtocol) -> Bool {
        let bytes = [UInt8](signature)
        return bytes.withUnsafeBytes { EVPKey.verifySHA256(pkey, signature: $0, [UInt8](message)) }
    }
}
