import Foundation
import RelayCore
import RelayHTTP
import RelayTestSupport
import Testing

/// HTTPS served by libmicrohttpd (GnuTLS) with the test certificate, spoken to by the curl program with the
/// test CA; and the pairs of files the TLS library refuses.
@Suite struct TLSTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../fixtures").standardized

    static func fixture(_ name: String) -> String { fixtures.appendingPathComponent(name).path }

    /// The test server certificate: its names include 127.0.0.1, ::1 and localhost.
    static func certificate() throws -> TLSCertificate {
        try TLSCertificate(certificateFile: fixture("tls/server.pem"), keyFile: fixture("tls/server.key"))
    }

    static func router() -> Router {
        var router = Router()
        router.get("/hello") { request, _ in .text("hello over \(request.headers["host"] ?? "?")") }
        return router
    }

    /// Runs a program to its end on a thread of its own; returns its exit status and standard output.
    static func run(_ program: String, _ arguments: [String]) async throws -> (status: Int32, output: String) {
        let (termination, output) = try await ChildProcess.run(program, arguments)
        guard case .exited(let status) = termination else { return (-1, output) }
        return (status, output)
    }

    /// `curl` with the test CA, a 20 s bound, and the status code after the body.
    static func curl(_ url: String, _ extra: [String] = []) async throws -> (status: Int32, output: String) {
        try await run(
            "/usr/bin/curl",
            ["-sS", "--max-time", "20", "--cacert", fixture("tls/ca.pem"), "-w", " %{http_code}"] + extra + [url]
        )
    }

    @Test func servesHTTPSWithTheConfiguredCertificate() async throws {
        try await withServer(tls: try Self.certificate(), handler: Self.router().handler) { server in
            #expect(server.tls?.certificateFile.hasSuffix("server.pem") == true)
            let answer = try await Self.curl("https://127.0.0.1:\(server.port)/hello")
            #expect(answer.status == 0)
            #expect(answer.output == "hello over 127.0.0.1:\(server.port) 200", "\(answer.output)")
            // TLS 1.2 is the least iOS asks for; it is served too.
            let tls12 = try await Self.curl("https://localhost:\(server.port)/hello", ["--tls-max", "1.2"])
            #expect(tls12.output.hasSuffix(" 200"), "\(tls12.output)")
            // Plain HTTP on the TLS port gets no HTTP answer.
            let plain = try await Self.curl("http://127.0.0.1:\(server.port)/hello")
            #expect(plain.status != 0)
            #expect(!plain.output.contains("hello"))
        }
    }

    @Test func aClientThatNeverStartsTheHandshakeIsClosedAtTheHeaderDeadline() async throws {
        try await withServer(
            configure: {
                $0.headerTimeout = 1
                $0.connectionTimeout = 30
            },
            tls: try Self.certificate(),
            handler: Self.router().handler
        ) { server in
            let silent = try RawConnection(port: server.port, receiveTimeout: 20)
            #expect(await silent.readsEndOfStream())
            #expect(server.statistics.closed(.headerDeadline) == 1)
        }
    }

    /// A temporary copy of the test key encrypted with a pass phrase (PKCS#8), made by the openssl program.
    static func encryptedKey() async throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("enc-\(UUID().uuidString).key").path
        let made = try await run(
            "/usr/bin/openssl",
            ["pkcs8", "-topk8", "-in", fixture("tls/server.key"), "-passout", "pass:secret", "-out", path]
        )
        try #require(made.status == 0)
        return path
    }

    @Test(arguments: [
        ("tls/missing.pem", "tls/server.key", "cannot read the TLS certificate file"),
        ("tls/server.pem", "tls/missing.key", "cannot read the TLS key file"),
        ("tls/server.pem", "tls/client.key", "do not match"),
        ("tls/ca.pem", "tls/server.key", "do not match"),
        ("webhooks/message-arabic.json", "tls/server.key", "the TLS library refused"),
        ("tls/server.pem", "webhooks/message-arabic.json", "the TLS library refused"),
        ("tls/server.key", "tls/server.pem", "the TLS library refused"),
    ])
    func anUnusablePairIsRefusedWithTheReason(certificate: String, key: String, reason: String) throws {
        let error = try #require(throws: HTTPServerError.self) {
            try TLSCertificate(certificateFile: Self.fixture(certificate), keyFile: Self.fixture(key))
        }
        #expect(error.code == .tls)
        #expect(error.message.contains(reason), "\(error.message)")
        #expect(!error.message.contains("BEGIN"), "\(error.message)")
    }

    @Test func anEncryptedKeyIsRefusedSayingHowToDecryptIt() async throws {
        let key = try await Self.encryptedKey()
        defer { try? FileManager.default.removeItem(atPath: key) }
        let error = try #require(throws: HTTPServerError.self) {
            try TLSCertificate(certificateFile: Self.fixture("tls/server.pem"), keyFile: key)
        }
        #expect(error.message.contains("Decryption has failed"), "\(error.message)")
        #expect(error.message.contains("openssl pkey"), "\(error.message)")
    }

    @Test func theDescriptionNamesTheFilesOnly() throws {
        let certificate = try Self.certificate()
        let keyText = try String(contentsOfFile: Self.fixture("tls/server.key"), encoding: .utf8)
        let keyLine = try #require(keyText.split(separator: "\n").dropFirst().first)
        #expect(certificate.description.contains("server.key"))
        #expect(!certificate.description.contains(keyLine))
        #expect(!String(reflecting: certificate).contains(keyLine))
    }
}
