/// TLS settings of a mock server: with them it speaks HTTP/2 over TLS 1.2+ with ALPN `h2`; without them,
/// cleartext h2c with prior knowledge (RFC 9113 §3.3).
public struct ServerTLS: Sendable {
    /// PEM certificate chain file of the server (e.g. fixtures/tls/server.pem).
    public var certificatePath: String
    /// PEM private key file of the server (e.g. fixtures/tls/server.key).
    public var privateKeyPath: String
    /// PEM CA file: when set, clients may present a certificate signed by it, and a connection whose client
    /// certificate verified says so (the mock APNs then needs no provider token: Apple, "Establishing a
    /// certificate-based connection to APNs"). A client without a certificate is still served.
    public var clientCAPath: String?

    public init(certificatePath: String, privateKeyPath: String, clientCAPath: String? = nil) {
        self.certificatePath = certificatePath
        self.privateKeyPath = privateKeyPath
        self.clientCAPath = clientCAPath
    }
}
