import Foundation

extension Configuration.HTTP {
    /// What ``maxConnections`` may ask for (the open-file limit may allow fewer; the server then serves fewer
    /// and says so at start), and the per-address and per-range caps.
    public static let maxConnectionsRange = 1...1_000_000

    /// What ``maxBodyBytes`` may be: up to 16 MiB, far above any body the API's routes take (a webhook's
    /// message, a device), a bound on what one request makes the relay hold. `POST /v1/ditto/events` has a
    /// bound of its own (`apps[].ditto.maxBodyBytes`, for up to 1,000 events).
    public static let maxBodyBytesRange = 1...16_777_216

    /// What the listener's timeouts in SECONDS may be: up to a day. libmicrohttpd reads its idle timeout as
    /// 32 bits, so a larger value would wrap.
    public static let timeoutSecondsRange = 1...86_400

    /// Why `host`, a listener's address, cannot be bound as written: brackets belong to an IPv6 address in a
    /// URL, and the resolver reads the bracketed text as a name it cannot find. Nil when it can be.
    static func hostProblem(_ host: String) -> String? {
        guard host.contains("[") || host.contains("]") else { return nil }
        let bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        return "'\(host)' is a URL's spelling: write the address without brackets ('\(bare)')"
    }

    /// Every problem with the `http` section, each starting with its key path.
    func problems() -> [String] {
        var problems: [String] = []
        func require(_ ok: Bool, _ problem: @autoclosure () -> String) { if !ok { problems.append(problem()) } }
        func positive(_ value: Int, _ key: String) { require(value > 0, "http.\(key): must be positive") }
        func within(_ range: ClosedRange<Int>, _ value: Int, _ key: String, _ note: String = "") {
            require(range.contains(value), "http.\(key): must be \(range.lowerBound)...\(range.upperBound)\(note)")
        }
        require((0...65_535).contains(port), "http.port: must be 0...65535, is \(port)")
        require(!host.isEmpty, "http.host: must not be empty")
        if let problem = Self.hostProblem(host) { problems.append("http.host: \(problem)") }
        within(Self.maxBodyBytesRange, maxBodyBytes, "maxBodyBytes", " (each request's body is held whole)")
        within(Self.timeoutSecondsRange, connectionTimeoutSeconds, "connectionTimeoutSeconds")
        within(Self.maxConnectionsRange, maxConnections, "maxConnections")
        within(Self.maxConnectionsRange, maxConnectionsPerAddress, "maxConnectionsPerAddress")
        within(Self.maxConnectionsRange, maxConnectionsPerPrefix, "maxConnectionsPerPrefix")
        within(1...32, ipv4PrefixLength, "ipv4PrefixLength")
        within(1...128, ipv6PrefixLength, "ipv6PrefixLength")
        positive(minBodyBytesPerSecond, "minBodyBytesPerSecond")
        within(Self.timeoutSecondsRange, bodyRateGraceSeconds, "bodyRateGraceSeconds")
        within(Self.timeoutSecondsRange, headerTimeoutSeconds, "headerTimeoutSeconds")
        within(Self.timeoutSecondsRange, bodyTimeoutSeconds, "bodyTimeoutSeconds")
        within(Self.maxHeaderBytesRange, maxHeaderBytes, "maxHeaderBytes", " (memory kept for every connection)")
        within(1...64, threads, "threads")
        for (index, entry) in trustedProxies.enumerated() where IPNetwork(entry) == nil {
            problems.append(
                "http.trustedProxies[\(index)]: '\(entry)' is not an IP address or CIDR range (e.g. 10.0.0.0/8, ::1)"
            )
        }
        problems += tls.problems()
        problems += credentialFailures.problems()
        problems += admin.problems(publicPort: port)
        return problems
    }

    /// The operator's listener, apart from the API: `GET /metrics` and `GET /readyz` with a check per app
    /// (app ids are the operator's business) for a private network (a Prometheus scraper, a load balancer's
    /// probes), and `/healthz`. The API's listener answers 404 for `/metrics` and its `/readyz` names no
    /// app. Plain HTTP, with the API's timeouts, at most 64 connections at once. On by default.
    public struct Admin: Codable, Sendable, Equatable {
        /// The port when none is set: 8081.
        public static let defaultPort = 8081
        /// Whether the listener is started.
        public var enabled = true
        /// Address to listen on: loopback unless the scrape network is elsewhere.
        public var host = "127.0.0.1"
        /// TCP port; 0 picks a free one. Must differ from `http.port`. Left at ``defaultPort`` while
        /// `http.port` is 0, it is 0 too (``resolvedPort(publicPort:)``).
        public var port = defaultPort
        public init(enabled: Bool = true, host: String = "127.0.0.1", port: Int = defaultPort) {
            self.enabled = enabled
            self.host = host
            self.port = port
        }

        /// The port to listen on: ``port``, or 0 (a free one) when `publicPort` is 0 and ``port`` is left at
        /// ``defaultPort``, so relays on free ports (tests, several in one process) never clash on 8081.
        public func resolvedPort(publicPort: Int) -> Int {
            publicPort == 0 && port == Self.defaultPort ? 0 : port
        }

        /// Every problem of an enabled listener (a disabled one is not looked at).
        func problems(publicPort: Int) -> [String] {
            guard enabled else { return [] }
            var problems: [String] = []
            if !(0...65_535).contains(port) { problems.append("http.admin.port: must be 0...65535, is \(port)") }
            if resolvedPort(publicPort: publicPort) != 0 && port == publicPort {
                problems.append("http.admin.port: must differ from http.port (\(port)): they are two listeners")
            }
            if host.isEmpty { problems.append("http.admin.host: must not be empty") }
            if let problem = Configuration.HTTP.hostProblem(host) { problems.append("http.admin.host: \(problem)") }
            return problems
        }
    }
}

extension Configuration.HTTP.TLS {
    /// Both files or neither, each readable. Whether they hold a PEM certificate and its key is decided by
    /// the TLS library when the server loads them (`config check` and `serve` both do).
    func problems() -> [String] {
        switch (certificateFile, keyFile) {
        case (nil, nil):
            return []
        case (_?, nil):
            return ["http.tls.keyFile: required with certificateFile"]
        case (nil, _?):
            return ["http.tls.certificateFile: required with keyFile"]
        case (let certificate?, let key?):
            var problems: [String] = []
            for (name, file) in [("certificateFile", certificate), ("keyFile", key)] {
                if let problem = FileManager.default.readProblem(atPath: file) {
                    problems.append("http.tls.\(name): \(problem)")
                }
            }
            return problems
        }
    }
}
