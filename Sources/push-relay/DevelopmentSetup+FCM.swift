import FCMMock
import Foundation
import RelayCLI
import RelayCore

extension DevelopmentSetup {
    /// The file, in the data directory, of the service account the in-process mock FCM trusts.
    static let fcmAccountFile = "dev-fcm-service-account.json"
    /// Its Firebase project.
    static let fcmProjectId = "dev-project"

    /// Starts one in-process mock FCM when some app is to use it, and points those apps at it with a service
    /// account it trusts (made once, kept in ``fcmAccountFile``; its `token_uri` is rewritten to this run's
    /// mock). Returns the mock (nil when none was needed).
    ///
    /// An app uses it when its `fcm` settings name no service account, or when it has neither `fcm` settings
    /// nor APNs credentials (a development app). An app with APNs credentials and no `fcm` has no Android:
    /// its Android registrations are refused rather than sent to a mock.
    func attachMockFCM(to apps: inout [Configuration.App]) throws -> MockFCMServer? {
        let needing = apps.indices.filter { apps[$0].developmentMocks.contains(.android) }
        guard !needing.isEmpty else { return nil }
        var account = try developmentServiceAccount()
        let mock = MockFCMServer(
            configuration: MockFCMConfiguration(
                tls: Self.mockTLS,
                accounts: [try MockFCMAccount(serviceAccount: account)],
                recordInMemory: false,
                onAccepted: { ConsoleLines.shared.say(MockFCMCommand.acceptedLine($0)) }
            )
        )
        try mock.start()
        let endpoint = Self.mockEndpoint(port: mock.port)
        account.tokenURI = endpoint.baseURL + MockFCMConfiguration.tokenPath
        let path: String
        do { path = try writeSecretFile(Self.fcmAccountFile, account.encoded()) } catch {
            mock.stop()
            throw error
        }
        for index in needing {
            apps[index].fcm = .init(serviceAccountFile: path, projectId: nil, endpoint: endpoint)
        }
        logger.notice(
            "in-process mock FCM started",
            ["mock.url": endpoint.baseURL, "apps": needing.map { apps[$0].id }.joined(separator: ",")]
        )
        return mock
    }

    /// The development service account of an earlier run (its RSA key is kept: making one takes a while),
    /// or a new one when there is none or it cannot be used.
    private func developmentServiceAccount() throws -> FCMServiceAccount {
        let path = dataDirectory + "/" + Self.fcmAccountFile
        if let existing = try? FCMServiceAccount(contentsOfFile: path), existing.projectId == Self.fcmProjectId,
            (try? MockFCMAccount(serviceAccount: existing)) != nil
        {
            return existing
        }
        return try MockFCMAccount.makeServiceAccount(projectId: Self.fcmProjectId, tokenURI: "http://pending")
    }
}
