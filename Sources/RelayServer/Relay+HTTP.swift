import RelayCore
import RelayHTTP
import RelayStore

extension Relay {
    /// The HTTP server's settings from the configuration's `http` section.
    static func httpServerConfiguration(_ http: Configuration.HTTP) -> HTTPServerConfiguration {
        var server = HTTPServerConfiguration()
        server.host = http.host
        server.port = http.port
        server.maxBodyBytes = http.maxBodyBytes
        server.connectionTimeout = http.connectionTimeoutSeconds
        server.headerTimeout = http.headerTimeoutSeconds
        server.bodyTimeout = http.bodyTimeoutSeconds
        server.maxConnections = http.maxConnections
        server.maxConnectionsPerAddress = http.maxConnectionsPerAddress
        server.maxConnectionsPerPrefix = http.maxConnectionsPerPrefix
        server.ipv4PrefixLength = http.ipv4PrefixLength
        server.ipv6PrefixLength = http.ipv6PrefixLength
        server.minBodyBytesPerSecond = http.minBodyBytesPerSecond
        server.bodyRateGraceSeconds = http.bodyRateGraceSeconds
        // The admin listener's descriptors stay out of the API's room, so a flood here cannot take them.
        server.reservedConnections = http.admin.enabled ? adminMaxConnections : 0
        server.trustedProxies = http.trustedProxies
        server.maxHeaderBytes = http.maxHeaderBytes
        server.threadCount = http.threads
        return server
    }

    /// The `http.admin` listener (plain HTTP, the API's timeouts, a few connections) serving
    /// ``RelayAPI/adminRouter(listener:)``, its metrics with `listener`'s connections (the API's); nil when not
    /// enabled.
    static func adminServer(
        _ configuration: Configuration,
        api: RelayAPI,
        listener: HTTPServer,
        logger: Logger,
        onResponse: @escaping @Sendable (AccessLogEntry) -> Void
    ) -> HTTPServer? {
        let http = configuration.http
        guard http.admin.enabled else { return nil }
        var server = httpServerConfiguration(http)
        server.host = http.admin.host
        server.port = http.admin.resolvedPort(publicPort: http.port)
        server.maxConnections = min(http.maxConnections, adminMaxConnections)
        server.reservedConnections = 0
        server.trustedProxies = []
        server.threadCount = 1
        let router = api.adminRouter { listener.statistics }
        return HTTPServer(
            configuration: server,
            methods: router.methods,
            // As on the API listener: no route's, or a bodiless route's, body is read.
            headerCheck: router.headerCheck,
            handler: withStoreDeadline(router.handler, configuration.storage),
            logger: logger,
            onResponse: onResponse
        )
    }

    /// `handler` with its store calls bound to start within `storage.requestDeadlineMilliseconds` of the
    /// request's arrival (``RelayStore/StoreDeadline``).
    static func withStoreDeadline(
        _ handler: @escaping @Sendable (HTTPRequest) async -> HTTPResponse,
        _ storage: Configuration.Storage
    ) -> @Sendable (HTTPRequest) async -> HTTPResponse {
        let deadline = Duration.milliseconds(storage.requestDeadlineMilliseconds)
        return { request in
            await StoreDeadline.$current.withValue(request.arrived + deadline) { await handler(request) }
        }
    }

    /// Connections the admin listener takes at once: scrapers and probes, not clients.
    static let adminMaxConnections = 64

    /// Reads `http.tls`'s certificate and key once and has the TLS library check them; `nil` when HTTPS is
    /// not configured. `config check` and `serve` both call it, so a file `serve` cannot use is refused by both.
    ///
    /// - Throws: ``Configuration/Invalid`` (`http.tls: ...`) when a file cannot be read or the TLS library
    ///   refuses the pair (not PEM, an encrypted key, a key that is not the certificate's).
    public static func loadTLS(_ http: Configuration.HTTP) throws(Configuration.Invalid) -> TLSCertificate? {
        guard let certificateFile = http.tls.certificateFile, let keyFile = http.tls.keyFile else { return nil }
        do {
            return try TLSCertificate(certificateFile: certificateFile, keyFile: keyFile)
        } catch {
            throw Configuration.Invalid(["http.tls: \(error.message)"])
        }
    }
}
