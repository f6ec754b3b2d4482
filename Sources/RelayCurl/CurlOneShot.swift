import CCurl
import Foundation

/// One libcurl easy handle for ONE blocking transfer (``OutboundHTTP``). Not `Sendable`: made, used and
/// freed on the one thread that runs the transfer.
final class CurlOneShot: CurlEasy {
    /// A handle with the options every one-shot shares: no signals, no redirects, only `http` and `https`,
    /// the response body discarded (never read, never logged) unless ``keepBody(upTo:)`` asks for it.
    /// - Throws: ``TransportError`` `.other` when libcurl cannot make the handle or refuses an option.
    init() throws(TransportError) {
        try super.init(bodyLimit: 0)
        try set(CURLOPT_FOLLOWLOCATION, 0)
        try set(CURLOPT_PROTOCOLS_STR, "http,https")
    }

    /// Keeps the first `limit` bytes of the response body (readable as ``CurlEasy/body`` after
    /// ``perform()``) instead of discarding it; the rest is dropped.
    func keepBody(upTo limit: Int) { bodyLimit = limit }

    /// Runs the transfer, blocking the calling thread (`curl_easy_perform`).
    /// - Throws: ``TransportError`` classified from libcurl's result.
    func perform() throws(TransportError) {
        resetTransfer()
        let result = curl_easy_perform(raw)
        guard result != CURLE_OK else { return }
        throw TransportError(curl: result, text: errorText(result))
    }
}
