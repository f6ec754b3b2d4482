import Foundation

/// A Google service account's key file, as the Firebase console downloads it (Project settings > Service
/// accounts > Generate new private key): what the FCM client needs to get access tokens.
///
/// Source: Google, "Using OAuth 2.0 for Server to Server Applications". The file holds more fields
/// (`client_id`, `auth_uri`, ...); they are not needed and are ignored. ``description`` never shows the
/// private key.
public struct FCMServiceAccount: Codable, Sendable, Equatable, CustomStringConvertible {
    /// `service_account` in a real key file.
    public var type: String?
    /// The Firebase project the account belongs to, e.g. `my-chat-app`.
    public var projectId: String
    /// The key's id: the `kid` of every assertion.
    public var privateKeyId: String
    /// The RSA private key, PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`).
    public var privateKey: String
    /// The account's address: the `iss` of every assertion.
    public var clientEmail: String
    /// Where assertions are exchanged for access tokens: the `aud` of every assertion, e.g.
    /// `https://oauth2.googleapis.com/token`.
    public var tokenURI: String

    private enum CodingKeys: String, CodingKey {
        case type
        case projectId = "project_id"
        case privateKeyId = "private_key_id"
        case privateKey = "private_key"
        case clientEmail = "client_email"
        case tokenURI = "token_uri"
    }

    public init(
        projectId: String,
        privateKeyId: String,
        privateKey: String,
        clientEmail: String,
        tokenURI: String,
        type: String? = "service_account"
    ) {
        self.type = type
        self.projectId = projectId
        self.privateKeyId = privateKeyId
        self.privateKey = privateKey
        self.clientEmail = clientEmail
        self.tokenURI = tokenURI
    }

    /// Why a key file cannot be used.
    public struct LoadError: Error, Sendable, Equatable, CustomStringConvertible {
        public var description: String
    }

    /// Reads and checks the key file at `path`.
    /// - Throws: ``LoadError`` saying which file and what is wrong (unreadable, not JSON, a missing field,
    ///   not a service account, see ``problems()``).
    public init(contentsOfFile path: String) throws(LoadError) {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw LoadError(description: "cannot read service account file \(path)")
        }
        do { try self.init(json: data) } catch {
            throw LoadError(description: "service account file \(path): \(error.description)")
        }
    }

    /// Decodes and checks a key file's JSON.
    /// - Throws: ``LoadError`` naming the missing or wrong field.
    public init(json data: Data) throws(LoadError) {
        do { self = try JSONDecoder().decode(FCMServiceAccount.self, from: data) } catch let error as DecodingError {
            throw LoadError(description: Self.explain(error))
        } catch {
            throw LoadError(description: "not JSON")
        }
        let problems = problems()
        guard problems.isEmpty else { throw LoadError(description: problems.joined(separator: "; ")) }
    }

    /// Every problem with the values, empty when they are usable.
    public func problems() -> [String] {
        var problems: [String] = []
        if let type, type != "service_account" {
            problems.append("type is '\(type)', not 'service_account'")
        }
        if !Self.isValidProjectId(projectId) { problems.append("project_id '\(projectId)' is not a project id") }
        if privateKeyId.isEmpty { problems.append("private_key_id is empty") }
        if !privateKey.contains("-----BEGIN") { problems.append("private_key is not a PEM key") }
        if clientEmail.isEmpty { problems.append("client_email is empty") }
        if let problem = Configuration.UserAuth.urlProblem(tokenURI) { problems.append("token_uri \(problem)") }
        return problems
    }

    /// True for a project id that may go into FCM's send path (`/v1/projects/{projectId}/messages:send`): 6 to 100 characters of lowercase letters,
    /// digits, `-`, and the `.` and `:` of domain-scoped ids (`example.com:project`), starting with a letter.
    public static func isValidProjectId(_ id: String) -> Bool {
        guard (6...100).contains(id.utf8.count), let first = id.utf8.first, (0x61...0x7A).contains(first) else {
            return false
        }
        return id.utf8.allSatisfy { byte in
            (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte) || byte == 0x2D || byte == 0x2E
                || byte == 0x3A
        }
    }

    /// The key file's JSON (sorted keys), e.g. to write a mock account for development.
    public func encoded() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes, .prettyPrinted]
        // Plain strings cannot fail to encode.
        return try! encoder.encode(self)
    }

    /// Redacted: the account and project, never the key.
    public var description: String { "service account \(clientEmail) (project \(projectId), key \(privateKeyId))" }

    private static let hint =
        " (is this a service account key file? Firebase console > Project settings > Service accounts; "
        + "google-services.json is the app's file, not the server's)"

    private static func explain(_ error: DecodingError) -> String {
        switch error {
        case .keyNotFound(let key, _): "missing field '\(key.stringValue)'" + hint
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            "field '\(context.codingPath.map(\.stringValue).joined(separator: "."))' is not a string" + hint
        case .dataCorrupted: "not JSON"
        @unknown default: "not a service account key file"
        }
    }
}
