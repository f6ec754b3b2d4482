import CMicroHTTPD
import Foundation
import RelayCore

/// The certificate and private key an ``HTTPServer`` serves HTTPS with (libmicrohttpd's TLS, on GnuTLS):
/// read once from PEM files and checked by the TLS library itself when made, so a file it cannot use is
/// refused before anything listens.
///
/// Its description names the files only; the key's bytes are never printed.
public struct TLSCertificate: Sendable, CustomStringConvertible {
    /// The certificate file: the server certificate, then any intermediates (PEM).
    public let certificateFile: String
    /// The private key file (unencrypted PEM).
    public let keyFile: String
    /// The files' bytes, each followed by a NUL: libmicrohttpd takes C strings.
    let certificatePEM: [CChar]
    let keyPEM: [CChar]

    /// Files larger than this are not a certificate or key.
    static let maxFileBytes = 1 << 20

    /// Reads both files and has libmicrohttpd load them (a daemon that opens no socket).
    ///
    /// - Throws: ``HTTPServerError`` `.tls` when a file cannot be read or is larger than 1 MiB, when this
    ///   libmicrohttpd has no TLS, or when the TLS library refuses the pair (not PEM, an encrypted key, a key
    ///   that is not the certificate's), with the library's reason.
    public init(certificateFile: String, keyFile: String) throws(HTTPServerError) {
        self.certificateFile = certificateFile
        self.keyFile = keyFile
        certificatePEM = try Self.read(certificateFile, what: "certificate")
        keyPEM = try Self.read(keyFile, what: "key")
        try check()
    }

    public var description: String { "TLSCertificate(certificateFile: \(certificateFile), keyFile: \(keyFile))" }

    /// Whether this libmicrohttpd was built with TLS (`MHD_FEATURE_TLS`).
    public static var isSupported: Bool { MHD_is_feature_supported(.FEATURE_TLS) == .YES }

    /// Runs `body` with the daemon options that serve this certificate. TLS 1.2 and 1.3 only (App Transport
    /// Security asks for at least 1.2). The pointers are valid only inside `body`; libmicrohttpd reads them
    /// while it starts, into its own credentials.
    func withOptions<T>(_ body: ([MHD_OptionItem]) throws -> T) rethrows -> T {
        try certificatePEM.withUnsafeBufferPointer { certificate in
            try keyPEM.withUnsafeBufferPointer { key in
                try Self.priorities.withCString { priorities in
                    try body([
                        MHD_OptionItem(
                            option: .HTTPS_MEM_CERT,
                            value: 0,
                            ptr_value: UnsafeMutableRawPointer(mutating: certificate.baseAddress)
                        ),
                        MHD_OptionItem(
                            option: .HTTPS_MEM_KEY,
                            value: 0,
                            ptr_value: UnsafeMutableRawPointer(mutating: key.baseAddress)
                        ),
                        MHD_OptionItem(
                            option: .HTTPS_PRIORITIES,
                            value: 0,
                            ptr_value: UnsafeMutableRawPointer(mutating: priorities)
                        ),
                    ])
                }
            }
        }
    }

    /// GnuTLS's defaults without the protocol versions before TLS 1.2.
    static let priorities = "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2"

    private static func read(_ file: String, what: String) throws(HTTPServerError) -> [CChar] {
        guard let handle = FileHandle(forReadingAtPath: file) else {
            throw HTTPServerError(code: .tls, message: "cannot read the TLS \(what) file \(file)")
        }
        defer { try? handle.close() }
        let data: Data
        do {
            data = try handle.read(upToCount: maxFileBytes + 1) ?? Data()
        } catch {
            throw HTTPServerError(
                code: .tls,
                message: "cannot read the TLS \(what) file \(file): \(error.localizedDescription)"
            )
        }
        guard data.count <= maxFileBytes else {
            throw HTTPServerError(code: .tls, message: "the TLS \(what) file \(file) is larger than 1 MiB")
        }
        return data.map { CChar(bitPattern: $0) } + [0]
    }

    /// Starts and stops a daemon without a socket that loads this pair, so GnuTLS decides as it will when
    /// serving.
    private func check() throws(HTTPServerError) {
        guard Self.isSupported else {
            throw HTTPServerError(code: .tls, message: "this libmicrohttpd was built without TLS support")
        }
        let messages = MHDMessages(logger: .disabled())
        defer { withExtendedLifetime(messages) {} }
        let flags = MHD_USE_ERROR_LOG.rawValue | MHD_USE_TLS.rawValue | MHD_USE_NO_LISTEN_SOCKET.rawValue
        let daemon = withOptions { options in
            (options + [MHD_OptionItem(option: .END, value: 0, ptr_value: nil)]).withUnsafeBufferPointer {
                cmhd_start_daemon(
                    flags,
                    0,
                    MHDCallbacks.access,
                    MHDCallbacks.completed,
                    MHDCallbacks.connectionNotified,
                    MHDCallbacks.uriLog,
                    nil,
                    MHDMessages.callback,
                    Unmanaged.passUnretained(messages).toOpaque(),
                    $0.baseAddress!
                )
            }
        }
        guard let daemon else {
            let reason = messages.latest.first ?? "no reason given"
            throw HTTPServerError(
                code: .tls,
                message: "the TLS library refused certificate \(certificateFile) with key \(keyFile): \(reason)"
                    + " The certificate file must be PEM (the server certificate, then any intermediates) and"
                    + " the key file its private key, unencrypted PEM (openssl pkey -in KEY -out PLAIN decrypts one)."
            )
        }
        MHD_stop_daemon(daemon)
    }
}
