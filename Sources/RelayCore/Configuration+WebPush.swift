import Foundation

extension Configuration {
    /// An app's Web Push settings (RFC 8030/8291/8292): browsers subscribed through the app's web pages.
    /// Without ``vapidKeyFile``, `push-relay serve` sends this app's web pushes to an in-process mock push
    /// service with a development key (no browser's push service is contacted without a key).
    public struct WebPush: Codable, Sendable, Equatable {
        /// The VAPID private key (PEM, P-256), whose public key the app's pages give
        /// `pushManager.subscribe` (`push-relay keys vapid` makes one). A path; its content is never printed.
        public var vapidKeyFile: String?
        /// The VAPID `sub` claim: how a push service reaches the app's operator, `mailto:` or `https:`.
        public var subject: String?
        /// Send Declarative Web Push (`"web_push": 8030`, shown without a service worker on Safari) instead of
        /// the JSON a service worker shows. Needs ``openURL``.
        public var declarative: Bool
        /// The page a click opens: an absolute URL where `{roomId}` and `{messageId}` are replaced
        /// (percent-encoded) by the message's; the declarative payload's `navigate`.
        public var openURL: String?
        /// A push service the app's test browsers subscribe at (a mock): endpoints under its base URL may be
        /// plain http on loopback, and its CA file is trusted. Every other endpoint is https to a public
        /// address.
        public var mock: MockEndpoint?

        /// The `sub` claim when none is set: the development mock's.
        public static let developmentSubject = "mailto:push-relay@localhost"
        /// Placeholders of ``openURL``.
        public static let openURLPlaceholders = ["{roomId}", "{messageId}"]

        public init(
            vapidKeyFile: String? = nil,
            subject: String? = nil,
            declarative: Bool = false,
            openURL: String? = nil,
            mock: MockEndpoint? = nil
        ) {
            self.vapidKeyFile = vapidKeyFile
            self.subject = subject
            self.declarative = declarative
            self.openURL = openURL
            self.mock = mock
        }

        enum CodingKeys: String, CodingKey, CaseIterable { case vapidKeyFile, subject, declarative, openURL, mock }

        public init(from decoder: any Decoder) throws {
            try decoder.rejectUnknownKeys(CodingKeys.self)
            let c = try decoder.container(keyedBy: CodingKeys.self)
            self.init(
                vapidKeyFile: try c.decodeIfPresent(String.self, forKey: .vapidKeyFile),
                subject: try c.decodeIfPresent(String.self, forKey: .subject),
                declarative: try c.decodeIfPresent(Bool.self, forKey: .declarative) ?? false,
                openURL: try c.decodeIfPresent(String.self, forKey: .openURL),
                mock: try c.decodeIfPresent(MockEndpoint.self, forKey: .mock)
            )
        }

        /// Every problem, each starting with `path` (`apps[0].webPush`): a key file needs a subject,
        /// `declarative` needs `openURL`, `openURL` is an absolute http(s) URL once its placeholders are
        /// filled and holds no other brace, the mock a base URL. The key file's content and the subject's
        /// form are checked where the client's rules live (RelayWebPush's `checkCredentials`, run by
        /// `config check` and `serve`).
        func problems(at path: String) -> [String] {
            var problems: [String] = []
            if vapidKeyFile != nil, subject == nil {
                problems.append("\(path).subject: required with vapidKeyFile (mailto: or https: of the operator)")
            }
            if declarative, openURL == nil {
                problems.append("\(path).openURL: required with declarative (the notification's navigate URL)")
            }
            if let openURL {
                let filled = Self.openURLPlaceholders.reduce(openURL) { $0.replacingOccurrences(of: $1, with: "x") }
                let scheme = URLComponents(string: filled)?.scheme?.lowercased()
                if scheme != "https" && scheme != "http" || URLComponents(string: filled)?.host?.isEmpty != false {
                    problems.append("\(path).openURL: must be an absolute http(s) URL ({roomId}, {messageId} allowed)")
                } else if filled.contains("{") || filled.contains("}") {
                    // A brace left over is a placeholder misspelt (`{roomid}`), sent as written otherwise.
                    problems.append("\(path).openURL: only {roomId} and {messageId} are placeholders (case matters)")
                }
            }
            if let mock {
                problems += mock.problems(at: "\(path).mock")
                if mock.baseURL.allSatisfy(\.isASCII), let host = URL(string: mock.baseURL)?.host,
                    !Configuration.isLoopback(host)
                {
                    // Users' subscriptions under the mock's origin skip the https and public-address rules.
                    problems.append(
                        "\(path).mock.baseURL: must name this host (localhost, 127.0.0.1 or ::1): subscriptions "
                            + "under a mock's origin are sent without the https and public-address checks"
                    )
                }
            }
            return problems
        }
    }
}
