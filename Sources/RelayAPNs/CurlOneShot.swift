import CCurl
import Foundation

/// Owns one libcurl easy handle for ONE blocking transfer (``OutboundHTTP``). Not `Sendable`: made, used and
/// freed on the one thread that runs the transfer.
final class CurlOneShot {
    let raw: UnsafeMutableRawPointer
    /// `CURLOPT_ERRORBUFFER`: libcurl writes its error text here (CURL_ERROR_SIZE bytes).
    private let errorBuffer: UnsafeMutablePointer<CChar>
    /// The header list; libcurl does not copy it, so it lives as long as the handle.
    private var headers: UnsafeMutablePointer<curl_slist>?
    /// Where ``keepBody(upTo:)`` collects the body; libcurl holds an unretained pointer to it.
    private var kept: BodyBuffer?

    private static let globalInit: Void = { _ = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) }()

    /// A handle with the options every one-shot shares: no signals, no redirects, only `http` and `https`,
    /// the response body discarded (never read, never logged).
    /// - Throws: ``APNsTransportError`` `.other` when libcurl cannot make the handle or refuses an option.
    init() throws(APNsTransportError) {
        _ = Self.globalInit
        guard let raw = curl_easy_init() else {
            throw APNsTransportError(code: .other, message: "curl_easy_init failed")
        }
        self.raw = raw
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
        try check(ccurl_easy_setopt_ptr(raw, CURLOPT_ERRORBUFFER, errorBuffer), "CURLOPT_ERRORBUFFER")
        try set(CURLOPT_NOSIGNAL, 1)
        try set(CURLOPT_FOLLOWLOCATION, 0)
        try set(CURLOPT_PROTOCOLS_STR, "http,https")
        try check(ccurl_easy_setopt_write(raw, CURLOPT_WRITEFUNCTION, Self.discard), "CURLOPT_WRITEFUNCTION")
    }

    deinit {
        curl_easy_cleanup(raw)
        if let headers { curl_slist_free_all(headers) }
        errorBuffer.deallocate()
    }

    /// Sets a `long` option.
    func set(_ option: CURLoption, _ value: Int) throws(APNsTransportError) {
        try check(ccurl_easy_setopt_long(raw, option, value), "\(option)")
    }

    /// Sets a string option (libcurl copies strings).
    func set(_ option: CURLoption, _ value: String) throws(APNsTransportError) {
        try check(ccurl_easy_setopt_string(raw, option, value), "\(option)")
    }

    /// Sets the request header lines, `Name: value` each.
    func setHeaders(_ lines: [String]) throws(APNsTransportError) {
        var list: UnsafeMutablePointer<curl_slist>?
        for line in lines {
            guard let next = curl_slist_append(list, line) else {
                if let list { curl_slist_free_all(list) }
                throw APNsTransportError(code: .other, message: "curl_slist_append failed")
            }
            list = next
        }
        if let headers { curl_slist_free_all(headers) }
        headers = list
        try check(ccurl_easy_setopt_slist(raw, CURLOPT_HTTPHEADER, list), "CURLOPT_HTTPHEADER")
    }

    /// Makes the request a POST of `body` (copied by libcurl).
    func setBody(_ body: Data) throws(APNsTransportError) {
        try set(CURLOPT_POST, 1)
        try set(CURLOPT_POSTFIELDSIZE, body.count)
        let copied = body.withUnsafeBytes { bytes in
            // An empty body still needs a non-null pointer, or libcurl would read the body from stdin.
            let pointer = bytes.baseAddress ?? UnsafeRawPointer(("" as StaticString).utf8Start)
            return ccurl_easy_setopt_ptr(raw, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: pointer))
        }
        try check(copied, "CURLOPT_COPYPOSTFIELDS")
    }

    /// Keeps the first `limit` bytes of the response body (readable as ``body`` after ``perform()``) instead
    /// of discarding it; the rest is dropped.
    func keepBody(upTo limit: Int) throws(APNsTransportError) {
        kept = BodyBuffer(limit: limit)
        try check(ccurl_easy_setopt_write(raw, CURLOPT_WRITEFUNCTION, Self.keep), "CURLOPT_WRITEFUNCTION")
        try check(
            ccurl_easy_setopt_ptr(raw, CURLOPT_WRITEDATA, Unmanaged.passUnretained(kept!).toOpaque()),
            "CURLOPT_WRITEDATA"
        )
    }

    /// The response body kept by ``keepBody(upTo:)``; empty otherwise.
    var body: Data { kept?.data ?? Data() }

    /// Runs the transfer, blocking the calling thread (`curl_easy_perform`).
    /// - Throws: ``APNsTransportError`` classified from libcurl's result.
    func perform() throws(APNsTransportError) {
        errorBuffer[0] = 0
        let result = curl_easy_perform(raw)
        guard result != CURLE_OK else { return }
        let text = errorBuffer[0] != 0 ? String(cString: errorBuffer) : String(cString: curl_easy_strerror(result))
        throw APNsTransportError(curl: result, text: text)
    }

    /// The HTTP status of the transfer; 0 when none arrived.
    var responseCode: Int {
        var code = 0
        _ = ccurl_easy_getinfo_long(raw, CURLINFO_RESPONSE_CODE, &code)
        return code
    }

    private func check(_ code: CURLcode, _ option: String) throws(APNsTransportError) {
        guard code != CURLE_OK else { return }
        throw APNsTransportError(
            code: .other,
            curlCode: Int(code.rawValue),
            message: "curl_easy_setopt(\(option)): \(String(cString: curl_easy_strerror(code)))"
        )
    }

    /// Appends to the handle's ``BodyBuffer`` up to its limit.
    private static let keep: @convention(c) (UnsafeMutablePointer<CChar>, Int, Int, UnsafeMutableRawPointer?) -> Int =
        { bytes, size, count, context in
            guard let context else { return 0 }
            let buffer = Unmanaged<BodyBuffer>.fromOpaque(context).takeUnretainedValue()
            let take = min(size * count, max(0, buffer.limit - buffer.data.count))
            buffer.data.append(UnsafeRawPointer(bytes).assumingMemoryBound(to: UInt8.self), count: take)
            return size * count
        }

    /// Discards the response body: a receiver's answer is never read or logged.
    private static let discard:
        @convention(c) (UnsafeMutablePointer<CChar>, Int, Int, UnsafeMutableRawPointer?) -> Int =
            { _, size, count, _ in size * count }
}

/// A response body being collected, capped at `limit` bytes.
private final class BodyBuffer {
    let limit: Int
    var data = Data()
    init(limit: Int) { self.limit = limit }
}
