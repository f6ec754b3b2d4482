import CMicroHTTPD

extension HTTPServer {
    /// The version of GNU libmicrohttpd linked, e.g. `0.9.75`.
    public static var libraryVersion: String { MHD_get_version().map { String(cString: $0) } ?? "unknown" }
}
