import Foundation
import RelayCrypto
import RelayTestSupport
import Testing

@Suite struct RS256Tests {
    /// One key for the suite: RSA generation takes a while.
    static let key = try! RS256Key.generate()

    /// Runs the `openssl` tool (an implementation independent of ours) in `directory`.
    static func openssl(_ arguments: [String], in directory: URL) async throws -> (status: Int32, output: String) {
        let (termination, output) = try await ChildProcess.run(
            "/usr/bin/openssl",
            arguments,
            directory: directory.path,
            includingErrors: true
        )
        guard case .exited(let status) = termination else { return (-1, output) }
        return (status, output)
    }

    static func temporaryDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rs256-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    @Test func aSignatureVerifiesWithThePublicKeyAndNotWithAnother() async throws {
        let message = Data("header.claims".utf8)
        let signature = try Self.key.sign(message)
        #expect(signature.count == 256)
        let publicKey = try PublicKey(pem: Self.key.publicKeyPEM)
        #expect(publicKey.algorithm == .rs256)
        #expect(publicKey.verify(signature: signature, for: message))
        #expect(!publicKey.verify(signature: signature, for: Data("header.claimz".utf8)))
        var flipped = signature
        flipped[10] ^= 1
        #expect(!publicKey.verify(signature: flipped, for: message))
        #expect(!publicKey.verify(signature: Data(), for: message))
        let other = try RS256Key.generate()
        #expect(!other.publicKey.verify(signature: signature, for: message))
    }

    @Test func opensslVerifiesOurSignatureAsPKCS1v15WithSHA256() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let message = Data(#"{"iss":"relay@example.iam.gserviceaccount.com"}"#.utf8)
        try message.write(to: directory.appendingPathComponent("message"))
        try Self.key.sign(message).write(to: directory.appendingPathComponent("signature"))
        try Data(Self.key.publicKeyPEM.utf8).write(to: directory.appendingPathComponent("public.pem"))
        let result = try await Self.openssl(
            ["dgst", "-sha256", "-verify", "public.pem", "-signature", "signature", "message"],
            in: directory
        )
        #expect(result.status == 0, "\(result.output)")
        #expect(result.output.contains("Verified OK"))
    }

    @Test func aKeyFromOpensslSignsAfterAPEMRoundTrip() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let made = try await Self.openssl(
            ["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", "key.pem"],
            in: directory
        )
        #expect(made.status == 0)
        let pem = try String(contentsOf: directory.appendingPathComponent("key.pem"), encoding: .utf8)
        let key = try RS256Key(privateKeyPEM: pem)
        #expect(key.bits == 2048)
        let again = try RS256Key(privateKeyPEM: key.privateKeyPEM)
        let signature = try again.sign(Data("x".utf8))
        #expect(key.publicKey.verify(signature: signature, for: Data("x".utf8)))
    }

    @Test func smallRSAKeysAndOtherKeyTypesAreRefused() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        _ = try await Self.openssl(
            ["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:1024", "-out", "small.pem"],
            in: directory
        )
        let small = try String(contentsOf: directory.appendingPathComponent("small.pem"), encoding: .utf8)
        let error = #expect(throws: CryptoError.self) { try RS256Key(privateKeyPEM: small) }
        #expect(error?.description == "RSA key has 1024 bits; RS256 needs at least 2048")
        let ec = try #require(try ES256Key.generate().privateKeyPEM)
        #expect(throws: CryptoError.self) { try RS256Key(privateKeyPEM: ec) }
        #expect(throws: CryptoError.self) { try RS256Key(privateKeyPEM: "not a key") }
        #expect(throws: CryptoError.self) { try RS256Key.generate(bits: 1024) }
        #expect(throws: CryptoError.self) { try RS256Key(privateKeyPEM: Self.key.publicKeyPEM) }
    }

    @Test func aCompactJWSSignedWithRS256ParsesBackAndVerifies() async throws {
        struct Header: Codable, Equatable { var alg = "RS256", typ = "JWT", kid = "k1" }
        struct Claims: Codable, Equatable { var iss = "a@b.c", aud = "https://example.com/token", iat = 1, exp = 2 }
        let jws = try CompactJWS.sign(header: Header(), payload: Claims()) { (input) throws(CryptoError) in
            try Self.key.sign(input)
        }
        let parsed = try CompactJWS(parsing: jws.compact)
        #expect(parsed == jws)
        #expect(try JSONDecoder().decode(Header.self, from: parsed.header) == Header())
        #expect(try JSONDecoder().decode(Claims.self, from: parsed.payload) == Claims())
        #expect(Self.key.publicKey.verify(signature: parsed.signature, for: Data(parsed.signingInput.utf8)))
        // The JSON is sorted and keeps its slashes.
        #expect(String(decoding: parsed.payload, as: UTF8.self).hasPrefix(#"{"aud":"https://example.com/token""#))
        for bad in ["", "a.b", "a.b.c.d", "!!.??.**"] {
            #expect(throws: CryptoError.self) { try CompactJWS(parsing: bad) }
        }
    }
}
