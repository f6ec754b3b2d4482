import COpenSSL

/// Drains OpenSSL's thread-local error queue into one line, for error messages.
package func openSSLErrorText() -> String {
    var parts: [String] = []
    while case let code = ERR_get_error(), code != 0 {
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        parts.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }
    return parts.isEmpty ? "no OpenSSL error" : parts.joined(separator: "; ")
}

/// Reads whatever a memory BIO holds as bytes.
func bioBytes(_ bio: OpaquePointer) -> [UInt8] {
    var pointer: UnsafeMutablePointer<CChar>?
    let count = copenssl_bio_get_mem_data(bio, &pointer)
    guard count > 0, let pointer else { return [] }
    return pointer.withMemoryRebound(to: UInt8.self, capacity: count) {
        Array(UnsafeBufferPointer(start: $0, count: count))
    }
}

/// The version of OpenSSL linked, e.g. `OpenSSL 3.0.19 27 Jan 2026`.
public var openSSLVersion: String { String(cString: copenssl_version_text()) }
