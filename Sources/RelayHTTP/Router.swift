import RelayCore

/// Maps `(method, path pattern)` to async handlers and renders every failure as an ``HTTPError`` body.
///
/// - Unknown path: 404 `not_found`. Known path, other method: 405 `method_not_allowed` with `Allow`.
/// - A thrown ``HTTPError`` is rendered as is; any other error becomes what ``errorAnswer`` makes of it, or
///   500 `internal_error` with a generic message, and the error itself is logged with `request.id` and
///   `http.route`, at warning when ``errorAnswer`` knew it (a state the layer below reports on its own, as
///   the store's outage or damage) and at error when not: within the router's `failureLines` budget when it
///   has one (a storage outage fails every request alike), the lines past it counted and reported
///   (``RelayCore/LogBudget/admit(reporting:at:)``).
/// - A literal segment beats a `{parameter}` at the same position (`/v1/devices/count` before
///   `/v1/devices/{token}`). Parameters are percent-decoded and never empty (an empty segment matches nothing).
/// - `HEAD` falls back to the `GET` handler (libmicrohttpd drops the body).
/// - A query parameter the route does not take is 400 `invalid_query`, and a body sent with `GET`, `HEAD`
///   or `DELETE` (which take none) 400 `bad_request`, before the handler runs: a misspelt parameter or a
///   body meant for another call is never quietly left out.
public struct Router: Sendable {
    /// A route handler.
    public typealias Handler = @Sendable (HTTPRequest, RouteParameters) async throws -> HTTPResponse

    private enum Segment: Sendable, Equatable {
        case literal(String)
        case parameter(String)
    }

    private struct Entry: Sendable {
        var route: Route
        var segments: [Segment]
        /// The query parameters the route takes.
        var query: Set<String>
        var handler: Handler
    }

    private var entries: [Entry] = []
    /// Header checks by `"<METHOD> <literal path>"` (``checkHeaders(_:_:check:)``).
    private var headerChecks: [String: HeaderVerdict.Check] = [:]
    /// The header check of every other request whose route is found (``checkRoutedHeaders(_:)``).
    private var routedCheck: RoutedCheck?
    private let logger: Logger
    /// The answer to an error a handler threw that is not an ``HTTPError`` (nil: 500).
    private let errorAnswer: @Sendable (any Error) -> HTTPError?
    /// The budget of the `handler failed` lines; nil: every one is written.
    private let failureLines: LogBudget?

    /// - Parameters:
    ///   - logger: receives the real cause of every error answered by `errorAnswer` or with 500.
    ///   - errorAnswer: turns the errors of the layers below (a store that cannot write) into their own
    ///     answer; nil for 500.
    ///   - failureLines: the budget of the `handler failed` lines, which several routers may share; its
    ///     report names them as its `lines` say.
    public init(
        logger: Logger = .disabled(),
        errorAnswer: @escaping @Sendable (any Error) -> HTTPError? = { _ in nil },
        failureLines: LogBudget? = nil
    ) {
        self.logger = logger
        self.errorAnswer = errorAnswer
        self.failureLines = failureLines
    }

    /// The registered routes in registration order.
    public var routes: [Route] { entries.map(\.route) }

    /// The query parameters each route takes.
    public var queryParameters: [Route: Set<String>] {
        Dictionary(uniqueKeysWithValues: entries.map { ($0.route, $0.query) })
    }

    /// The methods some route answers, with `HEAD` wherever `GET` is: what ``HTTPServer``'s `methods` takes.
    public var methods: Set<String> {
        var methods = Set(entries.map(\.route.method))
        if methods.contains("GET") { methods.insert("HEAD") }
        return methods
    }

    /// Registers `handler` for `method` (uppercased) and `pattern`, e.g. `"/v1/devices/{token}"`, taking
    /// the query parameters named in `query` (none by default).
    ///
    /// A malformed pattern (not starting with `/`, an empty segment, a `{` that is not a whole segment, a
    /// repeated parameter name) or a duplicate route is a programming error and stops the process.
    public mutating func add(
        _ method: String,
        _ pattern: String,
        query: Set<String> = [],
        handler: @escaping Handler
    ) {
        let route = Route(method: method.uppercased(), pattern: pattern)
        precondition(!entries.contains { $0.route == route }, "duplicate route \(route)")
        entries.append(Entry(route: route, segments: Self.parse(pattern), query: query, handler: handler))
    }

    public mutating func get(_ pattern: String, query: Set<String> = [], handler: @escaping Handler) {
        add("GET", pattern, query: query, handler: handler)
    }
    public mutating func post(_ pattern: String, query: Set<String> = [], handler: @escaping Handler) {
        add("POST", pattern, query: query, handler: handler)
    }
    public mutating func put(_ pattern: String, query: Set<String> = [], handler: @escaping Handler) {
        add("PUT", pattern, query: query, handler: handler)
    }
    public mutating func patch(_ pattern: String, query: Set<String> = [], handler: @escaping Handler) {
        add("PATCH", pattern, query: query, handler: handler)
    }
    public mutating func delete(_ pattern: String, query: Set<String> = [], handler: @escaping Handler) {
        add("DELETE", pattern, query: query, handler: handler)
    }

    /// Has `check` decide a request to `method` and the literal `path` from its headers, before its body is
    /// read (``HTTPServer``'s `headerCheck`): its own body limit, or a refusal.
    public mutating func checkHeaders(_ method: String, _ path: String, check: @escaping HeaderVerdict.Check) {
        precondition(!path.contains("{"), "a header check takes a literal path: \(path)")
        headerChecks["\(method.uppercased()) \(path)"] = check
    }

    /// A check of a request's headers and client address once its route (`pattern`) is known.
    public typealias RoutedCheck =
        @Sendable (_ pattern: String, _ headers: HTTPHeaders, _ client: String) -> HeaderVerdict

    /// Has `check` decide, from its headers, every request whose route is found and that no
    /// ``checkHeaders(_:_:check:)`` names, before its body is read.
    public mutating func checkRoutedHeaders(_ check: @escaping RoutedCheck) {
        routedCheck = check
    }

    /// The header checks as one server `headerCheck`, before any body byte is read: a request to no route is
    /// answered 404 (or 405 with `Allow`, as ``respond(to:)`` answers) at once, so no stranger's body is held
    /// for a path that takes none; a literal path's own check decides its requests, ``routedCheck`` the other
    /// routes'. A target that does not parse is refused as ``HTTPRequest/parseTarget(_:)`` refuses it. A
    /// request that proceeds carries its route to ``respond(to:)``, which does not look for it again.
    public var headerCheck: HeaderVerdict.Check {
        let router = self
        return { method, target, headers, client in
            let parsed: (path: String, segments: [String], query: [String: String])
            do throws(HTTPError) { parsed = try HTTPRequest.parseTarget(target) } catch { return .refuse(error) }
            let resolution = router.resolve(method: method, segments: parsed.segments)
            // A body where the route takes none is refused before it is read, whoever sends it.
            if case .found(let entry, _) = resolution, let refusal = Self.bodyRefusal(entry.route, headers: headers) {
                return .refuse(refusal)
            }
            let verdict: HeaderVerdict
            if let check = router.headerChecks["\(method) \(parsed.path)"] {
                verdict = check(method, target, headers, client)
            } else {
                switch resolution {
                case .notFound: return .refuse(.notFound())
                case .methodNotAllowed(_, let allowed): return .refuse(.methodNotAllowed(allowed: allowed))
                case .found(let entry, _):
                    verdict = router.routedCheck?(entry.route.pattern, headers, client) ?? .proceed(maxBodyBytes: nil)
                }
            }
            guard case .found(let entry, let parameters) = resolution else { return verdict }
            return Self.carrying(entry, parameters, verdict)
        }
    }

    /// `verdict`, its request carrying the route found (``Resolved``) when it proceeds, now or once settled.
    private static func carrying(
        _ entry: Entry,
        _ parameters: [String: String],
        _ verdict: HeaderVerdict
    )
        -> HeaderVerdict
    {
        switch verdict {
        case .proceed(let limit, let note):
            .proceed(maxBodyBytes: limit, note: Resolved(entry: entry, parameters: parameters, note: note))
        case .refuse: verdict
        case .settle(let settle): .settle { carrying(entry, parameters, await settle()) }
        }
    }

    /// A request's route as its header check found it (``HTTPRequest/headerNote``), with the route check's own
    /// note, which ``respond(to:)`` hands on to the handler.
    private struct Resolved: Sendable {
        var entry: Entry
        var parameters: [String: String]
        var note: (any Sendable)?
    }

    /// This router as a server handler.
    public var handler: @Sendable (HTTPRequest) async -> HTTPResponse {
        { request in await self.respond(to: request) }
    }

    /// Routes `request` and returns the handler's response or a rendered error; never throws. The
    /// response's ``HTTPResponse/route`` holds the matched pattern.
    public func respond(to request: HTTPRequest) async -> HTTPResponse {
        var request = request
        let resolution: Resolution
        if let resolved = request.headerNote as? Resolved {
            resolution = .found(resolved.entry, parameters: resolved.parameters)
            request.headerNote = resolved.note
        } else {
            resolution = resolve(method: request.method, segments: request.pathSegments)
        }
        let best: (entry: Entry, parameters: [String: String])
        switch resolution {
        case .notFound:
            return HTTPError.notFound().response
        case .methodNotAllowed(let pattern, let allowed):
            var response = HTTPError.methodNotAllowed(allowed: allowed).response
            response.route = pattern
            return response
        case .found(let entry, let parameters):
            best = (entry, parameters)
        }
        let pattern = best.entry.route.pattern
        var response: HTTPResponse
        do {
            try Self.check(request, against: best.entry)
            response = try await best.entry.handler(request, RouteParameters(best.parameters))
        } catch let error as HTTPError {
            response = error.response
        } catch {
            let answer = errorAnswer(error)
            if failureLines?.admit(reporting: logger) ?? true {
                logger.log(
                    answer == nil ? .error : .warning,
                    "handler failed",
                    [
                        "request.id": request.id, "http.route": pattern,
                        "http.method": LogText.clipped(request.method), "error": String(describing: error),
                    ]
                )
            }
            response = (answer ?? HTTPError.internal()).response
        }
        response.route = pattern
        return response
    }

    /// Refuses what `entry`'s route does not take: a query parameter it does not name, a body with a method
    /// that takes none.
    private static func check(_ request: HTTPRequest, against entry: Entry) throws(HTTPError) {
        let route = entry.route
        if let name = request.query.keys.filter({ !entry.query.contains($0) }).min() {
            let taken = entry.query.isEmpty ? "none" : entry.query.sorted().joined(separator: ", ")
            let shown = LogText.clipped(name, maxBytes: 64)
            throw .badRequest(
                code: "invalid_query",
                message: "\(route) takes no query parameter '\(shown)' (takes: \(taken))"
            )
        }
        if !request.body.isEmpty, let refusal = bodyRefusal(route) { throw refusal }
    }

    /// The refusal of a body sent to `route` when its method takes none (GET, HEAD, DELETE); with `headers`,
    /// only when they declare one (a `Content-Length` other than 0, or a `Transfer-Encoding`).
    private static func bodyRefusal(_ route: Route, headers: HTTPHeaders? = nil) -> HTTPError? {
        guard ["GET", "HEAD", "DELETE"].contains(route.method) else { return nil }
        if let headers, headers["transfer-encoding"] == nil, headers["content-length"].flatMap({ Int($0) }) ?? 0 == 0 {
            return nil
        }
        return .badRequest(message: "\(route) takes no request body")
    }

    /// What a request to `method` and `segments` reaches.
    private enum Resolution {
        case found(Entry, parameters: [String: String])
        /// The path is a route's, the method none of its: the first such route's pattern, and the methods
        /// its path answers.
        case methodNotAllowed(pattern: String, allowed: [String])
        case notFound
    }

    private func resolve(method: String, segments: [String]) -> Resolution {
        var matches: [(entry: Entry, parameters: [String: String])] = []
        for entry in entries {
            if let parameters = Self.match(entry.segments, segments) { matches.append((entry, parameters)) }
        }
        guard !matches.isEmpty else { return .notFound }
        var candidates = matches.filter { $0.entry.route.method == method }
        if candidates.isEmpty && method == "HEAD" {
            candidates = matches.filter { $0.entry.route.method == "GET" }
        }
        guard let best = candidates.min(by: { Self.moreSpecific($0.entry.segments, $1.entry.segments) }) else {
            var allowed: [String] = []
            for match in matches where !allowed.contains(match.entry.route.method) {
                allowed.append(match.entry.route.method)
            }
            return .methodNotAllowed(pattern: matches[0].entry.route.pattern, allowed: allowed)
        }
        return .found(best.entry, parameters: best.parameters)
    }

    /// The route pattern ``respond(to:)`` would label a request to `method` and the request target `target`
    /// with, from its line alone; nil when no route's path matches or the target does not parse. For the
    /// server's ``HTTPServer`` `routeOf`: a request refused before it reaches the router (413, conflicting
    /// headers) is counted under its route.
    public var routeOf: @Sendable (_ method: String, _ target: String) -> String? {
        let router = self
        return { method, target in
            guard let segments = try? HTTPRequest.parseTarget(target).segments else { return nil }
            switch router.resolve(method: method, segments: segments) {
            case .found(let entry, _): return entry.route.pattern
            case .methodNotAllowed(let pattern, _): return pattern
            case .notFound: return nil
            }
        }
    }

    private static func parse(_ pattern: String) -> [Segment] {
        precondition(pattern.hasPrefix("/"), "route pattern must start with /: \(pattern)")
        if pattern == "/" { return [] }
        var names: Set<String> = []
        return pattern.dropFirst().split(separator: "/", omittingEmptySubsequences: false).map { raw in
            precondition(!raw.isEmpty, "empty segment in route pattern \(pattern)")
            if raw.hasPrefix("{") && raw.hasSuffix("}") && raw.count > 2 {
                let name = String(raw.dropFirst().dropLast())
                precondition(!name.contains("{") && !name.contains("}"), "bad parameter in \(pattern)")
                precondition(names.insert(name).inserted, "repeated parameter \(name) in \(pattern)")
                return .parameter(name)
            }
            precondition(!raw.contains("{") && !raw.contains("}"), "parameter must be a whole segment: \(pattern)")
            return .literal(String(raw))
        }
    }

    private static func match(_ pattern: [Segment], _ path: [String]) -> [String: String]? {
        guard pattern.count == path.count else { return nil }
        var parameters: [String: String] = [:]
        for (segment, value) in zip(pattern, path) {
            switch segment {
            case .literal(let literal):
                guard literal == value else { return nil }
            case .parameter(let name):
                guard !value.isEmpty else { return nil }
                parameters[name] = value
            }
        }
        return parameters
    }

    /// True when `a` has a literal at the first position where `a` and `b` differ in kind.
    private static func moreSpecific(_ a: [Segment], _ b: [Segment]) -> Bool {
        for (x, y) in zip(a, b) {
            switch (x, y) {
            case (.literal, .parameter): return true
            case (.parameter, .literal): return false
            default: continue
            }
        }
        return false
    }
}
