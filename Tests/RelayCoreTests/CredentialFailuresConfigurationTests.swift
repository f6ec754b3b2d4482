import Foundation
import RelayCore
import Testing

/// `http.credentialFailures`: defaults, a file and variables, and every bad value named.
@Suite struct CredentialFailuresConfigurationTests {
    func file(_ text: String) throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("credential-\(UUID().uuidString).json")
        try Data(text.utf8).write(to: url)
        return url.path
    }

    @Test func defaultsLetARangeHoldAQuarterOfAWebhooksCalls() throws {
        let limits = try Configuration.load(file: nil, environment: [:]).http.credentialFailures
        #expect(
            limits == .init(perAddressBurst: 10, perAddressPerMinute: 10, perPrefixBurst: 16, perPrefixPerMinute: 60)
        )
        #expect(limits.maxTracked == 100_000)
    }

    @Test func aFileAndVariablesSetThem() throws {
        let path = try file(#"{"http":{"credentialFailures":{"perAddressBurst":3,"perPrefixPerMinute":5}}}"#)
        let limits = try Configuration.load(
            file: path,
            environment: [
                "PUSH_RELAY_HTTP_CREDENTIAL_FAILURES_PER_PREFIX_BURST": "6",
                "PUSH_RELAY_HTTP_CREDENTIAL_FAILURES_MAX_TRACKED": "5000",
            ]
        ).http.credentialFailures
        #expect(
            limits
                == .init(
                    perAddressBurst: 3,
                    perAddressPerMinute: 10,
                    perPrefixBurst: 6,
                    perPrefixPerMinute: 5,
                    maxTracked: 5000
                )
        )
    }

    @Test func badValuesAreEachNamed() throws {
        let path = try file(
            #"{"http":{"credentialFailures":{"perAddressBurst":0,"perAddressPerMinute":-1,"perPrefixBurst":0,"perPrefixPerMinute":0,"maxTracked":10,"other":1}}}"#
        )
        let error = #expect(throws: Configuration.Invalid.self) {
            try Configuration.load(file: path, environment: [:])
        }
        let problems = error?.problems ?? []
        for key in ["perAddressBurst", "perAddressPerMinute", "perPrefixBurst", "perPrefixPerMinute"] {
            #expect(problems.contains("http.credentialFailures.\(key): must be positive"), "\(problems)")
        }
        #expect(problems.contains { $0.hasPrefix("http.credentialFailures.maxTracked: must be 1000...10000000") })
        #expect(problems.contains("http.credentialFailures.other: unknown key"))
    }
}
