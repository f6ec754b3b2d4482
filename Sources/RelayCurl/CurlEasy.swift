import CCurl
import Foundation

/// One libcurl easy handle and what every use of one needs: the error buffer, no signals, a header list
/// that lives as long as libcurl may read it, the response body kept up to ``bodyLimit`` bytes, and options
/// checked as they are set. ``CurlEasyHandle`` (pushes) and ``CurlOneShot`` (other calls) build on it.
/// Not `Sendable`: one thread at a time uses a handle.
class CurlEasy {
    let raw: UnsafeMutableRawPointer
    /// `CURLOPT_ERRORBUFFER`: libcurl writes its error text here (CURL_ERROR_SIZE bytes).
    private let errorBuffer: UnsafeMutablePointer<CChar>
    /// The request's own header lines as libcurl's list, the last of them linked to ``sharedHeaders``'
    /// list; libcurl does not copy it, so it lives until replaced or deinit.
    private var ownHeaders: (first: UnsafeMutablePointer<curl_slist>, last: UnsafeMutablePointer<curl_slist>)?
    /// The block the request's list ends with, held while libcurl may read it.
    private var sharedHeaders: CurlHeaderBlock?
    /// The response body of the current transfer, its first ``bodyLimit`` bytes (the rest is dropped).
    private(set) var body = Data()
    /// Bytes of the response body kept; 0 discards it.
    var bodyLimit: Int
    /// Abort the transfer when the body grows past ``bodyLimit`` (instead of dropping the rest).
    var abortsOverLimit = false
    /// Whether the current transfer was aborted by ``abortsOverLimit``.
    private(set) var overLimit = false

    /// `curl_global_init` once per process, before any handle is made.
    static let globalInit: Void = { _ = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) }()

    /// - Throws: ``TransportError`` `.other` when libcurl cannot make the handle or refuses an option.
    init(bodyLimit: Int) throws(TransportError) {
        _ = Self.globalInit
        guard let raw = curl_easy_init() else {
            throw TransportError(code: .other, message: "curl_easy_init failed")
        }
        self.raw = raw
        self.bodyLimit = bodyLimit
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
        try check(ccurl_easy_setopt_ptr(raw, CURLOPT_ERRORBUFFER, errorBuffer), "CURLOPT_ERRORBUFFER")
        try set(CURLOPT_NOSIGNAL, 1)
        try check(ccurl_easy_setopt_write(raw, CURLOPT_WRITEFUNCTION, Self.write), "CURLOPT_WRITEFUNCTION")
        try check(
            ccurl_easy_setopt_ptr(raw, CURLOPT_WRITEDATA, Unmanaged.passUnretained(self).toOpaque()),
            "CURLOPT_WRITEDATA"
        )
    }

    deinit {
        curl_easy_cleanup(raw)
        freeOwnHeaders()
        errorBuffer.deallocate()
    }

    /// Sets a `long` option.
    func set(_ option: CURLoption, _ value: Int) throws(TransportError) {
        try check(ccurl_easy_setopt_long(raw, option, value), "option \(option.rawValue)")
    }

    /// Sets a string option (libcurl copies strings).
    func set(_ option: CURLoption, _ value: String) throws(TransportError) {
        try check(ccurl_easy_setopt_string(raw, option, value), "option \(option.rawValue)")
    }

    /// Sets the request header lines, `name: value` each: `own`, then `shared`'s, which are linked, not
    /// copied.
    func setHeaders(_ own: [String], shared: CurlHeaderBlock? = nil) throws(TransportError) {
        let list = try Self.headerList(own)
        freeOwnHeaders()
        sharedHeaders = shared
        if let list {
            var last = list
            while let next = last.pointee.next { last = next }
            last.pointee.next = shared?.list
            ownHeaders = (list, last)
        }
        try check(ccurl_easy_setopt_slist(raw, CURLOPT_HTTPHEADER, list ?? shared?.list), "CURLOPT_HTTPHEADER")
    }

    /// Frees the own lines' list, unlinked first from the shared block's, which its block frees.
    private func freeOwnHeaders() {
        guard let (first, last) = ownHeaders else { return }
        last.pointee.next = nil
        curl_slist_free_all(first)
        ownHeaders = nil
    }

    /// `lines` as a libcurl list of their own (nil for none).
    /// - Throws: ``TransportError`` `.other` when libcurl runs out of memory.
    static func headerList(_ lines: [String]) throws(TransportError) -> UnsafeMutablePointer<curl_slist>? {
        var list: UnsafeMutablePointer<curl_slist>?
        for line in lines {
            guard let next = curl_slist_append(list, line) else {
                if let list { curl_slist_free_all(list) }
                throw TransportError(code: .other, message: "curl_slist_append failed")
            }
            list = next
        }
        return list
    }

    /// Makes the request a POST of `body` (copied by libcurl).
    func setBody(_ body: Data) throws(TransportError) {
        try set(CURLOPT_POST, 1)
        try set(CURLOPT_POSTFIELDSIZE, body.count)
        let copied = body.withUnsafeBytes { bytes in
            // An empty body still needs a non-null pointer, or libcurl would read the body from stdin.
            let pointer = bytes.baseAddress ?? UnsafeRawPointer(("" as StaticString).utf8Start)
            return ccurl_easy_setopt_ptr(raw, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: pointer))
        }
        try check(copied, "CURLOPT_COPYPOSTFIELDS")
    }

    /// Forgets the last transfer's error text and body, before the next transfer.
    func resetTransfer() {
        errorBuffer[0] = 0
        body.removeAll(keepingCapacity: true)
        overLimit = false
    }

    /// libcurl's error text for the last transfer, or `curl_easy_strerror(code)` when it wrote none.
    func errorText(_ code: CURLcode) -> String {
        errorBuffer[0] != 0 ? String(cString: errorBuffer) : String(cString: curl_easy_strerror(code))
    }

    /// The HTTP status of the last transfer; 0 when none arrived.
    var responseCode: Int {
        var code = 0
        _ = ccurl_easy_getinfo_long(raw, CURLINFO_RESPONSE_CODE, &code)
        return code
    }

    /// Throws ``TransportError`` `.other` naming `option` when `code` is not `CURLE_OK`. The name is
    /// built only then: a request sets five options, and interpolating a C enum goes through reflection
    /// (about a tenth of the driver thread's time per request when it was built every time).
    func check(_ code: CURLcode, _ option: @autoclosure () -> String) throws(TransportError) {
        guard code != CURLE_OK else { return }
        throw TransportError(
            code: .other,
            curlCode: Int(code.rawValue),
            message: "curl_easy_setopt(\(option())): \(String(cString: curl_easy_strerror(code)))"
        )
    }

    /// `CURLOPT_WRITEFUNCTION`: keeps the body up to the handle's limit, and past it drops the rest or, with
    /// ``abortsOverLimit``, aborts the transfer (a return short of `bytes` is `CURLE_WRITE_ERROR`). C
    /// function pointers cannot capture, so the handle comes back as user data.
    private static let write: @convention(c) (UnsafeMutablePointer<CChar>, Int, Int, UnsafeMutableRawPointer?) -> Int =
        { data, size, count, user in
            let bytes = size * count
            guard let user else { return bytes }
            let handle = Unmanaged<CurlEasy>.fromOpaque(user).takeUnretainedValue()
            let room = max(0, handle.bodyLimit - handle.body.count)
            if handle.abortsOverLimit && bytes > room {
                handle.overLimit = true
                return 0
            }
            if room > 0 {
                handle.body.append(UnsafeRawPointer(data).assumingMemoryBound(to: UInt8.self), count: min(room, bytes))
            }
            return bytes
        }
}
