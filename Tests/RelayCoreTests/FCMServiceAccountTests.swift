import Foundation
import RelayCore
import Testing

@Suite struct FCMServiceAccountTests {
    static let pem = "-----BEGIN PRIVATE KEY-----\nMIIE...\n-----END PRIVATE KEY-----\n"

    /// A key file as the Firebase console writes it, extra fields included.
    static let file: [String: String] = [
        "type": "service_account",
        "project_id": "chat-app-1234",
        "private_key_id": "4f2a9c0b7d1e",
        "private_key": pem,
        "client_email": "relay@chat-app-1234.iam.gserviceaccount.com",
        "client_id": "109876543210",
        "auth_uri": "https://accounts.google.com/o/oauth2/auth",
        "token_uri": "https://oauth2.googleapis.com/token",
    ]

    static func json(_ fields: [String: String]) -> Data { try! JSONEncoder().encode(fields) }

    @Test func aConsoleKeyFileIsRead() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("fcm-account-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("account.json").path
        try Self.json(Self.file).write(to: URL(fileURLWithPath: path))
        let account = try FCMServiceAccount(contentsOfFile: path)
        #expect(account.projectId == "chat-app-1234")
        #expect(account.privateKeyId == "4f2a9c0b7d1e")
        #expect(account.clientEmail == "relay@chat-app-1234.iam.gserviceaccount.com")
        #expect(account.tokenURI == "https://oauth2.googleapis.com/token")
        #expect(account.privateKey == Self.pem)
        #expect(try FCMServiceAccount(json: account.encoded()) == account)
    }

    @Test func itsDescriptionNeverShowsTheKey() throws {
        let account = try FCMServiceAccount(json: Self.json(Self.file))
        #expect(!"\(account)".contains("PRIVATE KEY"))
        #expect("\(account)".contains("relay@chat-app-1234.iam.gserviceaccount.com"))
    }

    @Test(arguments: [
        ("private_key", "missing field 'private_key'"),
        ("client_email", "missing field 'client_email'"),
        ("token_uri", "missing field 'token_uri'"),
    ])
    func aMissingFieldIsNamed(field: String, message: String) {
        var fields = Self.file
        fields[field] = nil
        let error = #expect(throws: FCMServiceAccount.LoadError.self) { try FCMServiceAccount(json: Self.json(fields)) }
        #expect(error?.description.hasPrefix(message) == true, "\(error?.description ?? "")")
    }

    @Test func theAppsGoogleServicesFileIsToldApart() {
        let appFile = Data(#"{"project_info":{"project_id":"chat-app-1234"},"client":[]}"#.utf8)
        let error = #expect(throws: FCMServiceAccount.LoadError.self) { try FCMServiceAccount(json: appFile) }
        #expect(error?.description.contains("google-services.json is the app's file") == true)
    }

    @Test func wrongValuesAreAllReported() {
        var fields = Self.file
        fields["type"] = "authorized_user"
        fields["project_id"] = "Bad Project/../x"
        fields["private_key"] = "not a key"
        fields["token_uri"] = "ftp://example.com/token"
        let error = #expect(throws: FCMServiceAccount.LoadError.self) { try FCMServiceAccount(json: Self.json(fields)) }
        let text = error?.description ?? ""
        for part in ["type is 'authorized_user'", "project_id 'Bad Project/../x'", "private_key is not", "token_uri"] {
            #expect(text.contains(part), "\(text)")
        }
    }

    @Test func anUnreadableOrNonJSONFileIsSaidSo() throws {
        let missing = #expect(throws: FCMServiceAccount.LoadError.self) {
            try FCMServiceAccount(contentsOfFile: "/nonexistent/account.json")
        }
        #expect(missing?.description == "cannot read service account file /nonexistent/account.json")
        let garbage = #expect(throws: FCMServiceAccount.LoadError.self) { try FCMServiceAccount(json: Data("{".utf8)) }
        #expect(garbage?.description == "not JSON")
    }
}
