import CNghttp2

extension MockAPNsServer {
    /// The version of libnghttp2 the mock links, e.g. `1.52.0`.
    public static var nghttp2Version: String {
        nghttp2_version(0).map { String(cString: $0.pointee.version_str) } ?? "unknown"
    }
}
