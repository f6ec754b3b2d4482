import Foundation

extension Configuration {
    /// An app's FCM HTTP v1 settings (Android). Without a ``serviceAccountFile``, `push-relay serve` sends
    /// this app's Android pushes to an in-process mock FCM (a development setup; Google is never contacted
    /// without credentials).
    public struct FCM: Codable, Sendable, Equatable {
        /// The Google service account's JSON key file (a path; its content is never printed).
        public var serviceAccountFile: String?
        /// The Firebase project messages go to. Default: the service account's `project_id`.
        public var projectId: String?
        /// An FCM-compatible server (a mock) to send to instead of Google's.
        public var endpoint: MockEndpoint?
        /// `alert` (default): messages show the message; `wake`: data-only messages within each device's
        /// hourly budget (``PushMode``, ``WakePolicy``).
        public var mode: PushMode

        public init(
            serviceAccountFile: String? = nil,
            projectId: String? = nil,
            endpoint: MockEndpoint? = nil,
            mode: PushMode = .alert
        ) {
            self.serviceAccountFile = serviceAccountFile
            self.projectId = projectId
            self.endpoint = endpoint
            self.mode = mode
        }

        enum CodingKeys: String, CodingKey, CaseIterable { case serviceAccountFile, projectId, endpoint, mode }

        public init(from decoder: any Decoder) throws {
            try decoder.rejectUnknownKeys(CodingKeys.self)
            let c = try decoder.container(keyedBy: CodingKeys.self)
            self.init(
                serviceAccountFile: try c.decodeIfPresent(String.self, forKey: .serviceAccountFile),
                projectId: try c.decodeIfPresent(String.self, forKey: .projectId),
                endpoint: try c.decodeIfPresent(MockEndpoint.self, forKey: .endpoint),
                mode: try c.decodeIfPresent(PushMode.self, forKey: .mode) ?? .alert
            )
        }

        /// Every problem, each starting with `path` (`apps[0].fcm`): the key file must read as a service
        /// account, the project id must be one, the endpoint a base URL. Without a key file the settings
        /// stand for the development mock, so they may name nothing else, and only for an app that has no
        /// APNs credentials either: a production app's Android pushes must not go to a mock.
        func problems(at path: String, apnsCredentials: Bool) -> [String] {
            var problems: [String] = []
            if serviceAccountFile == nil {
                if projectId != nil || endpoint != nil {
                    problems.append("\(path).serviceAccountFile: required with projectId or endpoint")
                } else if apnsCredentials {
                    problems.append(
                        "\(path).serviceAccountFile: required for an app with APNs credentials (without it its "
                            + "Android pushes would go to the development mock); leave fcm out for no Android"
                    )
                }
            }
            if let file = serviceAccountFile {
                do { _ = try FCMServiceAccount(contentsOfFile: file) } catch {
                    problems.append("\(path).serviceAccountFile: \(error.description)")
                }
            }
            if let projectId, !FCMServiceAccount.isValidProjectId(projectId) {
                problems.append(
                    "\(path).projectId: '\(projectId)' is not a project id (6 to 100 lowercase letters, digits, "
                        + "'-', '.' or ':', starting with a letter)"
                )
            }
            problems += endpoint?.problems(at: "\(path).endpoint") ?? []
            return problems
        }
    }
}
