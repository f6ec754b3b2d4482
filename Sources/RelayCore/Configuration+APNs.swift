import Foundation

extension Configuration {
    /// An app's APNs settings: how the relay proves itself, where pushes go, and the environment a device
    /// gets when it registers without one. In a JSON file every key is optional.
    public struct APNs: Codable, Sendable, Equatable {
        /// APNs credentials. None: `push-relay serve` sends this app's pushes to an in-process mock APNs
        /// (a development setup; Apple's hosts are never contacted without credentials).
        public var credentials: Credentials?
        /// The environment a device gets when it registers without one. Default sandbox.
        public var defaultEnvironment: APNsEnvironment
        /// APNs-compatible servers (mocks) to send to instead of Apple's hosts, per environment. Default
        /// none: Apple's host for each environment.
        public var endpoints: Endpoints
        /// `alert` (default): pushes show the message; `wake`: silent background pushes within each device's
        /// hourly budget (``PushMode``, ``WakePolicy``).
        public var mode: PushMode

        public init(
            credentials: Credentials? = nil,
            defaultEnvironment: APNsEnvironment = .sandbox,
            endpoints: Endpoints = Endpoints(),
            mode: PushMode = .alert
        ) {
            self.credentials = credentials
            self.defaultEnvironment = defaultEnvironment
            self.endpoints = endpoints
            self.mode = mode
        }

        enum CodingKeys: String, CodingKey, CaseIterable { case credentials, defaultEnvironment, endpoints, mode }

        public init(from decoder: any Decoder) throws {
            try decoder.rejectUnknownKeys(CodingKeys.self)
            let c = try decoder.container(keyedBy: CodingKeys.self)
            self.init(
                credentials: try c.decodeIfPresent(Credentials.self, forKey: .credentials),
                defaultEnvironment: try c.decodeIfPresent(APNsEnvironment.self, forKey: .defaultEnvironment)
                    ?? .sandbox,
                endpoints: try c.decodeIfPresent(Endpoints.self, forKey: .endpoints) ?? Endpoints(),
                mode: try c.decodeIfPresent(PushMode.self, forKey: .mode) ?? .alert
            )
        }

        /// Where each environment's pushes go when not to Apple's host for it.
        public struct Endpoints: Codable, Sendable, Equatable {
            /// Instead of `api.push.apple.com`.
            public var production: MockEndpoint?
            /// Instead of `api.sandbox.push.apple.com`.
            public var sandbox: MockEndpoint?

            public init(production: MockEndpoint? = nil, sandbox: MockEndpoint? = nil) {
                self.production = production
                self.sandbox = sandbox
            }

            /// The same server for both environments (one mock answering for both).
            public init(both endpoint: MockEndpoint?) {
                self.init(production: endpoint, sandbox: endpoint)
            }

            /// The endpoint of `environment`; nil for Apple's host.
            public subscript(environment: APNsEnvironment) -> MockEndpoint? {
                get {
                    switch environment {
                    case .production: production
                    case .sandbox: sandbox
                    }
                }
                set {
                    switch environment {
                    case .production: production = newValue
                    case .sandbox: sandbox = newValue
                    }
                }
            }

            /// Whether neither environment has one (all pushes go to Apple's hosts).
            public var isEmpty: Bool { production == nil && sandbox == nil }

            enum CodingKeys: String, CodingKey, CaseIterable { case production, sandbox }

            public init(from decoder: any Decoder) throws {
                try decoder.rejectUnknownKeys(CodingKeys.self)
                let c = try decoder.container(keyedBy: CodingKeys.self)
                self.init(
                    production: try c.decodeIfPresent(MockEndpoint.self, forKey: .production),
                    sandbox: try c.decodeIfPresent(MockEndpoint.self, forKey: .sandbox)
                )
            }
        }

        /// Every problem with the credentials and endpoints, each starting with `path` (`apps[0].apns`).
        func problems(at path: String) -> [String] {
            var problems = credentials?.problems(at: "\(path).credentials") ?? []
            if credentials == nil, !endpoints.isEmpty {
                // Only an app with neither goes to the in-process mock: with endpoints alone every push would
                // fail for want of a provider token or certificate, which a mock APNs asks for as Apple does.
                problems.append(
                    "\(path).endpoints: need \(path).credentials (without both, serve uses its in-process mock APNs)"
                )
            }
            for environment in APNsEnvironment.allCases {
                problems += endpoints[environment]?.problems(at: "\(path).endpoints.\(environment.rawValue)") ?? []
            }
            return problems
        }
    }
}

extension Configuration.MockEndpoint {
    /// An http or https base URL: a scheme, a host and maybe a port, nothing else (paths are appended to it;
    /// user:password would be printed by `config check` and sent to every request); the CA file, when given,
    /// readable.
    func problems(at path: String) -> [String] {
        var problems: [String] = []
        let url = URL(string: baseURL)
        if !baseURL.allSatisfy(\.isASCII) {
            // Foundation's URL maps some non-ASCII hosts onto ASCII ones (full-width `ｌｏｃａｌｈｏｓｔ` reads as
            // `localhost`), so the host checked would not be the text configured.
            problems.append("\(path).baseURL: must be ASCII (a host of other letters in its xn-- form)")
        } else if !["http", "https"].contains(url?.scheme?.lowercased() ?? "") || (url?.host ?? "").isEmpty {
            problems.append("\(path).baseURL: must be an http or https URL, e.g. https://127.0.0.1:2197")
        } else if baseURL.hasSuffix("/") {
            problems.append("\(path).baseURL: must not end with /")
        } else if let url,
            url.user != nil || url.password != nil || !url.path.isEmpty || url.query != nil
                || url.fragment != nil
        {
            problems.append("\(path).baseURL: must be a scheme, a host and a port only, e.g. https://127.0.0.1:2197")
        } else if let port = url?.port, !(1...65535).contains(port) {
            problems.append("\(path).baseURL: the port must be 1 to 65535, not \(port)")
        }
        if let caFile, let problem = FileManager.default.readProblem(atPath: caFile) {
            problems.append("\(path).caFile: \(problem)")
        }
        return problems
    }
}
