import COpenSSL

/// Owns the server's `SSL_CTX`: TLS 1.2+, the certificate and key, ALPN `h2`, optional client-CA checks.
///
/// `@unchecked Sendable`: the context is fully configured in `init` and afterwards only used to create `SSL`
/// objects, which OpenSSL allows from any thread.
final class TLSContext: @unchecked Sendable {
    let raw: OpaquePointer
    let verifiesClients: Bool

    init(_ tls: ServerTLS) throws(MockServerError) {
        guard let raw = SSL_CTX_new(TLS_server_method()) else {
            throw MockServerError(.tls, "SSL_CTX_new failed: \(Self.errorText())")
        }
        self.raw = raw
        verifiesClients = tls.clientCAPath != nil
        guard copenssl_ctx_set_min_proto_version(raw, TLS1_2_VERSION) == 1 else {
            throw MockServerError(.tls, "SSL_CTX_set_min_proto_version failed: \(Self.errorText())")
        }
        guard SSL_CTX_use_certificate_chain_file(raw, tls.certificatePath) == 1 else {
            throw MockServerError(.tls, "cannot load certificate \(tls.certificatePath): \(Self.errorText())")
        }
        guard SSL_CTX_use_PrivateKey_file(raw, tls.privateKeyPath, SSL_FILETYPE_PEM) == 1,
            SSL_CTX_check_private_key(raw) == 1
        else {
            throw MockServerError(.tls, "cannot load private key \(tls.privateKeyPath): \(Self.errorText())")
        }
        _ = SSL_CTX_ctrl(
            raw,
            SSL_CTRL_MODE,
            Int(SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER | SSL_MODE_RELEASE_BUFFERS),
            nil
        )
        // Read ahead into a 64 KiB buffer: without it OpenSSL reads each TLS record with two read(2) calls
        // (its 5-byte header, then its body), about two per request from libcurl (strace).
        _ = SSL_CTX_ctrl(raw, SSL_CTRL_SET_READ_AHEAD, 1, nil)
        SSL_CTX_set_default_read_buffer_len(raw, 64 * 1024)
        SSL_CTX_set_alpn_select_cb(raw, Self.selectALPN, nil)
        if let ca = tls.clientCAPath {
            guard SSL_CTX_load_verify_locations(raw, ca, nil) == 1, let names = SSL_load_client_CA_file(ca) else {
                throw MockServerError(.tls, "cannot load client CA \(ca): \(Self.errorText())")
            }
            SSL_CTX_set_client_CA_list(raw, names)
            SSL_CTX_set_verify(raw, SSL_VERIFY_PEER, nil)
            let context: [UInt8] = Array("MockHTTP2".utf8)
            _ = SSL_CTX_set_session_id_context(raw, context, UInt32(context.count))
        }
    }

    deinit { SSL_CTX_free(raw) }

    /// ALPN wire form of the one protocol offered: `h2` (RFC 7301 §3.1, RFC 9113 §3.2).
    /// `nonisolated(unsafe)`: allocated once and never written after.
    nonisolated(unsafe) private static let h2Wire: UnsafeMutablePointer<UInt8> = {
        let bytes: [UInt8] = [2, UInt8(ascii: "h"), UInt8(ascii: "2")]
        let pointer = UnsafeMutablePointer<UInt8>.allocate(capacity: bytes.count)
        pointer.initialize(from: bytes, count: bytes.count)
        return pointer
    }()

    private static let selectALPN:
        @convention(c) (
            OpaquePointer?, UnsafeMutablePointer<UnsafePointer<UInt8>?>?, UnsafeMutablePointer<UInt8>?,
            UnsafePointer<UInt8>?, UInt32, UnsafeMutableRawPointer?
        ) -> Int32 = { _, out, outLength, offered, offeredLength, _ in
            guard let out, let outLength, let offered else { return SSL_TLSEXT_ERR_ALERT_FATAL }
            var selected: UnsafeMutablePointer<UInt8>?
            let result = SSL_select_next_proto(&selected, outLength, h2Wire, 3, offered, offeredLength)
            guard result == OPENSSL_NPN_NEGOTIATED, let selected else { return SSL_TLSEXT_ERR_ALERT_FATAL }
            out.pointee = UnsafePointer(selected)
            return SSL_TLSEXT_ERR_OK
        }

    static func errorText() -> String {
        let code = ERR_get_error()
        guard code != 0 else { return "no OpenSSL error" }
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        ERR_clear_error()
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
