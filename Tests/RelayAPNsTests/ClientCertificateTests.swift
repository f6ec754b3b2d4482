import Foundation
import RelayAPNs
import RelayCore
import RelayCrypto
import Testing

/// Certificate credentials are checked at start as the TLS handshake would use them: a bundle's password,
/// a key that belongs to its certificate.
@Suite struct ClientCertificateTests {
    static func fixture(_ path: String) -> String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../fixtures/\(path)")
            .standardized.path
    }

    /// The fixtures' client certificate and key, its PKCS#12 bundle (password `test`), and what is wrong with
    /// each broken variant; nil when the credentials work.
    static let cases: [(certificate: String, key: String?, password: String?, problem: String?)] = [
        ("tls/client.pem", "tls/client.key", nil, nil),
        ("tls/client.p12", nil, "test", nil),
        ("tls/client.pem", "tls/server.key", nil, "not the certificate's"),
        ("tls/client.p12", nil, "wrong", "wrong or missing password"),
        ("tls/client.p12", nil, nil, "wrong or missing password"),
        ("tls/client.pem", nil, nil, "no usable PEM private key"),
        ("tls/client.key", "tls/client.key", nil, "no PEM certificate"),
        ("tls/missing.pem", nil, nil, "cannot read"),
    ]

    @Test(arguments: cases.indices)
    func credentialsAreCheckedAsTLSWouldUseThem(index: Int) {
        let row = Self.cases[index]
        var app = Configuration.App(id: "cert", topic: "com.example.chat", apiKeySHA256: [])
        app.apns.credentials = .init(
            certificateFile: Self.fixture(row.certificate),
            certificateKeyFile: row.key.map(Self.fixture),
            certificatePassword: row.password
        )
        do {
            try APNsSenders.checkCredentials([app])
            #expect(row.problem == nil, "row \(index) passed")
        } catch {
            let problem = error.problems.first ?? ""
            #expect(problem.hasPrefix("apps[0].apns.credentials.certificateFile: "), "\(problem)")
            #expect(row.problem.map { problem.contains($0) } == true, "row \(index): \(problem)")
        }
    }
}
