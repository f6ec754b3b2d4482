import MockHTTP2

extension MockAPNsServer {
    /// The version of libnghttp2 the mock links, e.g. `1.52.0`.
    public static var nghttp2Version: String { ServerRunner.nghttp2Version }
}
