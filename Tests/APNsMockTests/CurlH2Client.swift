import CCurl
import Foundation

/// A small synchronous HTTP/2 client on one libcurl easy handle (which keeps its connection between
/// requests). Test-only. Not `Sendable`: one test uses it at a time.
final class CurlH2Client {
    struct Response {
        var status: Int
        var headers: [String: String]
        var body: Data
        var curlCode: Int
        var httpVersion: Int

        var reason: String? {
            (try? JSONSerialization.jsonObject(with: body) as? [String: Any])?["reason"] as? String
        }
        var json: [String: Any]? { try? JSONSerialization.jsonObject(with: body) as? [String: Any] }
    }

    struct TLS {
        var caPath: String
        var certificatePath: String?
        var keyPath: String?
    }

    private let handle: UnsafeMutableRawPointer
    private let base: String
    private let tls: TLS?

    private final class Sink {
        var body = Data()
        var headers: [String: String] = [:]
    }

    init(port: Int, tls: TLS? = nil) {
        handle = curl_easy_init()!
        self.tls = tls
        base = (tls == nil ? "http" : "https") + "://127.0.0.1:\(port)"
    }

    deinit { curl_easy_cleanup(handle) }

    private static let writeBody:
        @convention(c) (UnsafeMutablePointer<CChar>, Int, Int, UnsafeMutableRawPointer?) -> Int =
            { data, size, count, user in
                let sink = Unmanaged<Sink>.fromOpaque(user!).takeUnretainedValue()
                sink.body.append(UnsafeRawPointer(data).assumingMemoryBound(to: UInt8.self), count: size * count)
                return size * count
            }

    private static let writeHeader:
        @convention(c) (UnsafeMutablePointer<CChar>, Int, Int, UnsafeMutableRawPointer?) -> Int =
            { data, size, count, user in
                let sink = Unmanaged<Sink>.fromOpaque(user!).takeUnretainedValue()
                do {
                    let line = String(decoding: UnsafeRawBufferPointer(start: data, count: size * count), as: UTF8.self)
                    if let colon = line.firstIndex(of: ":") {
                        let name = line[..<colon].lowercased()
                        let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespacesAndNewlines)
                        sink.headers[name] = value
                    }
                }
                return size * count
            }

    /// Sends one request and waits for its answer (`timeoutMilliseconds`, default 10 s).
    func send(
        method: String = "POST",
        path: String,
        headers: [String] = [],
        body: Data? = nil,
        timeoutMilliseconds: Int = 10_000
    ) -> Response {
        let sink = Sink()
        let unmanaged = Unmanaged.passRetained(sink)
        defer { unmanaged.release() }
        var list: UnsafeMutablePointer<curl_slist>?
        for header in headers { list = curl_slist_append(list, header) }
        // An empty "Expect:" stops libcurl from waiting for 100-continue on large bodies.
        list = curl_slist_append(list, "Expect:")
        defer { curl_slist_free_all(list) }
        ccurl_easy_setopt_string(handle, CURLOPT_URL, base + path)
        ccurl_easy_setopt_long(
            handle,
            CURLOPT_HTTP_VERSION,
            tls == nil ? Int(CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE) : Int(CURL_HTTP_VERSION_2TLS)
        )
        if let tls {
            ccurl_easy_setopt_string(handle, CURLOPT_CAINFO, tls.caPath)
            ccurl_easy_setopt_string(handle, CURLOPT_SSLCERT, tls.certificatePath)
            ccurl_easy_setopt_string(handle, CURLOPT_SSLKEY, tls.keyPath)
        }
        ccurl_easy_setopt_long(handle, CURLOPT_TIMEOUT_MS, timeoutMilliseconds)
        ccurl_easy_setopt_slist(handle, CURLOPT_HTTPHEADER, list)
        ccurl_easy_setopt_write(handle, CURLOPT_WRITEFUNCTION, Self.writeBody)
        ccurl_easy_setopt_ptr(handle, CURLOPT_WRITEDATA, unmanaged.toOpaque())
        ccurl_easy_setopt_write(handle, CURLOPT_HEADERFUNCTION, Self.writeHeader)
        ccurl_easy_setopt_ptr(handle, CURLOPT_HEADERDATA, unmanaged.toOpaque())
        let payload = body ?? Data()
        ccurl_easy_setopt_string(handle, CURLOPT_CUSTOMREQUEST, method)
        ccurl_easy_setopt_long(handle, CURLOPT_POST, method == "POST" ? 1 : 0)
        let code = payload.withUnsafeBytes { bytes -> CURLcode in
            if method == "POST" {
                ccurl_easy_setopt_off(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(bytes.count))
                ccurl_easy_setopt_ptr(
                    handle,
                    CURLOPT_POSTFIELDS,
                    bytes.count == 0
                        ? UnsafeMutableRawPointer(mutating: ("" as StaticString).utf8Start)
                        : UnsafeMutableRawPointer(mutating: bytes.baseAddress)
                )
            }
            return curl_easy_perform(handle)
        }
        ccurl_easy_setopt_ptr(handle, CURLOPT_POSTFIELDS, nil)
        var status = 0
        ccurl_easy_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
        var version = 0
        ccurl_easy_getinfo_long(handle, CURLINFO_HTTP_VERSION, &version)
        return Response(
            status: status,
            headers: sink.headers,
            body: sink.body,
            curlCode: Int(code.rawValue),
            httpVersion: version
        )
    }
}
