import Foundation

/// What a server answered to one ``CurlRequest``: any status; the transport's client decides what it means.
package struct CurlResponse: Sendable, Equatable {
    /// The HTTP status.
    package var status: Int
    /// The values of the headers the driver was asked to read (``CurlMultiDriver``'s `responseHeaders`), by
    /// the name as given there; absent ones are left out.
    package var headers: [String: String]
    /// The body's first ``CurlEasyHandle/maxBodyBytes`` bytes.
    package var body: Data

    package init(status: Int, headers: [String: String] = [:], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}
