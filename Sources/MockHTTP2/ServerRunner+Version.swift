import CNghttp2

extension ServerRunner {
    /// The version of libnghttp2 the mocks link, e.g. `1.52.0`.
    package static var nghttp2Version: String {
        nghttp2_version(0).map { String(cString: $0.pointee.version_str) } ?? "unknown"
    }
}
