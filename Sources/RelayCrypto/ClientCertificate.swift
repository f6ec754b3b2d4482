import COpenSSL
import Foundation

/// A TLS client certificate and its key as libcurl presents them (APNs certificate authentication), read
/// and matched the way the TLS handshake will, so a file that cannot work stops the relay at start instead
/// of failing every push as a TLS error.
public enum ClientCertificate {
    /// Whether `path` names a PKCS#12 bundle (`.p12`, `.pfx`) rather than PEM: how libcurl is told to read it.
    public static func isPKCS12(_ path: String) -> Bool {
        let lower = path.lowercased()
        return lower.hasSuffix(".p12") || lower.hasSuffix(".pfx")
    }

    /// Reads the certificate and its private key (from `keyPath`, or the certificate's own file when nil; a
    /// PKCS#12 bundle holds both) with `password`, and checks that the key is the certificate's.
    /// - Throws: ``CryptoError`` `.invalidKey` saying what is wrong: unreadable file, no certificate, no key
    ///   or a wrong or missing password, a key that does not match.
    public static func check(certificatePath: String, keyPath: String?, password: String?) throws(CryptoError) {
        let certificateData = try contents(certificatePath)
        let (certificate, key): (OpaquePointer, OpaquePointer)
        if isPKCS12(certificatePath) {
            (certificate, key) = try readPKCS12(certificateData, password: password)
        } else {
            certificate = try readPEMCertificate(certificateData)
            let keyData = try keyPath.map { path throws(CryptoError) in try contents(path) } ?? certificateData
            do { key = try readPEMKey(keyData, password: password) } catch {
                X509_free(certificate)
                throw error
            }
        }
        defer {
            X509_free(certificate)
            EVP_PKEY_free(key)
        }
        guard X509_check_private_key(certificate, key) == 1 else {
            _ = openSSLErrorText()
            throw CryptoError(.invalidKey, "the private key is not the certificate's")
        }
    }

    private static func contents(_ path: String) throws(CryptoError) -> Data {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CryptoError(.invalidKey, "cannot read \(path)")
        }
        return data
    }

    /// Runs `body` with a memory BIO over `data`.
    private static func withBIO<T>(_ data: Data, _ body: (OpaquePointer) -> T?) -> T? {
        data.withUnsafeBytes { raw in
            guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else { return nil }
            defer { BIO_free(bio) }
            return body(bio)
        }
    }

    private static func readPKCS12(
        _ data: Data,
        password: String?
    ) throws(CryptoError) -> (OpaquePointer, OpaquePointer) {
        guard let bundle = withBIO(data, { d2i_PKCS12_bio($0, nil) }) else {
            throw CryptoError(.invalidKey, "not a PKCS#12 bundle: \(openSSLErrorText())")
        }
        defer { PKCS12_free(bundle) }
        var key: OpaquePointer?, certificate: OpaquePointer?
        guard PKCS12_parse(bundle, password ?? "", &key, &certificate, nil) == 1, let key, let certificate else {
            _ = openSSLErrorText()
            throw CryptoError(.invalidKey, "the PKCS#12 bundle cannot be opened: a wrong or missing password")
        }
        return (certificate, key)
    }

    private static func readPEMCertificate(_ data: Data) throws(CryptoError) -> OpaquePointer {
        guard let certificate = withBIO(data, { PEM_read_bio_X509($0, nil, nil, nil) }) else {
            throw CryptoError(.invalidKey, "no PEM certificate: \(openSSLErrorText())")
        }
        return certificate
    }

    /// A PEM private key, decrypted with `password`; without one an encrypted key is refused rather than
    /// prompted for (OpenSSL's default callback would ask on the terminal).
    private static func readPEMKey(_ data: Data, password: String?) throws(CryptoError) -> OpaquePointer {
        let key = withBIO(data) { bio in
            if let password {
                return password.withCString {
                    PEM_read_bio_PrivateKey(bio, nil, nil, UnsafeMutableRawPointer(mutating: $0))
                }
            }
            return PEM_read_bio_PrivateKey(bio, nil, { _, _, _, _ in 0 }, nil)
        }
        guard let key else {
            throw CryptoError(
                .invalidKey,
                "no usable PEM private key (an encrypted one needs its password): \(openSSLErrorText())"
            )
        }
        return key
    }
}
