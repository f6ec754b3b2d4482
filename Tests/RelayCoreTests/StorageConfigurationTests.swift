import Foundation
import Testing

@testable import RelayCore

@Suite struct StorageConfigurationTests {
    @Test func postgresIsOffUntilAURLIsGiven() throws {
        let defaults = try Configuration.load(file: nil, environment: [:])
        #expect(defaults.storage.postgres.url == nil)
        let url = "postgresql://relay@db.internal:5432/relay"
        let set = try Configuration.load(file: nil, environment: ["PUSH_RELAY_STORAGE_POSTGRES_URL": url])
        #expect(set.storage.postgres.url == url)
    }

    @Test func anEmptyURLIsRefused() {
        #expect(throws: Configuration.Invalid.self) {
            try Configuration.load(file: nil, environment: ["PUSH_RELAY_STORAGE_POSTGRES_URL": " "])
        }
    }

    @Test func theURLsPasswordNeverReachesTheDescription() throws {
        var configuration = Configuration()
        configuration.storage.postgres.url = "postgresql://relay:hunter2@db.internal/relay?sslpassword=swordfish"
        let shown = configuration.description
        #expect(!shown.contains("hunter2") && !shown.contains("swordfish"))
        #expect(shown.contains("db.internal/relay"))
    }

    /// The whole userinfo is redacted whatever it holds: an unencoded `@`, `/`, `:` or `?` in the password
    /// shows none of it (issue 23: `redacted@Pw/9f3k@…` was printed).
    @Test(arguments: [
        ("postgresql://relay:Pw/9f3k@x@db.internal/relay", "postgresql://redacted@db.internal/relay"),
        (
            "postgresql://relay:a@b/c:d@db.internal:5432/relay?sslmode=require",
            "postgresql://redacted@db.internal:5432/relay?redacted"
        ),
        ("postgresql://relay:p?w@db.internal/relay", "postgresql://redacted@db.internal/relay"),
        ("postgresql://relay%40corp:p%2Fw@db.internal/relay", "postgresql://redacted@db.internal/relay"),
        ("postgresql://db.internal/relay", "postgresql://db.internal/relay"),
        // An @ in the query may end the userinfo: nothing is shown.
        ("postgresql://relay@db.internal/relay?password=S3cr3t@pw", "postgresql://redacted"),
        ("postgresql://db.internal/relay?user=a@corp", "postgresql://redacted"),
    ])
    func aURLsUserinfoIsRedactedWhole(url: String, shown: String) {
        var configuration = Configuration()
        configuration.storage.postgres.url = url
        #expect(Configuration.withoutPassword(url) == shown)
        let printed = configuration.description
        #expect(printed.contains(shown), "\(printed)")
        for secret in ["9f3k", "relay:", "c:d", "p?w", "p%2Fw", "corp", "S3cr3t", "@pw"] {
            #expect(!printed.contains(secret))
        }
    }

    @Test func aPasswordFileNeedsAURL() {
        #expect {
            try Configuration.load(file: nil, environment: ["PUSH_RELAY_STORAGE_POSTGRES_PASSWORD_FILE": "/run/pw"])
        } throws: { error in
            (error as? Configuration.Invalid)?.problems == ["storage.postgres.passwordFile: needs storage.postgres.url"]
        }
    }

    @Test(arguments: [
        "host=db.internal password=hunter2 dbname=relay",
        "host=db.internal password = 'hunter2 with \\' quote' dbname=relay",
        "host=db.internal PASSWORD=hunter2",
    ])
    func aKeywordValueStringsPasswordNeverReachesTheDescription(url: String) {
        var configuration = Configuration()
        configuration.storage.postgres.url = url
        let shown = configuration.description
        #expect(!shown.contains("hunter2") && !shown.contains("quote"))
        #expect(shown.contains("host=db.internal") && shown.contains("redacted"))
    }

    @Test(arguments: ["1.5", "99999999999999999999", "ten"])
    func aNumberThatIsNotAWholeIntNamesItsVariableAndKey(value: String) {
        #expect {
            try Configuration.load(file: nil, environment: ["PUSH_RELAY_STORAGE_RETENTION_HOURS": value])
        } throws: { error in
            (error as? Configuration.Invalid)?.problems == [
                "PUSH_RELAY_STORAGE_RETENTION_HOURS: '\(value)' is not a valid value for storage.retentionHours"
            ]
        }
    }

    @Test func retentionIsAWeekByDefaultAndSetByTheEnvironment() throws {
        #expect(try Configuration.load(file: nil, environment: [:]).storage.retentionHours == 168)
        let set = try Configuration.load(file: nil, environment: ["PUSH_RELAY_STORAGE_RETENTION_HOURS": "24"])
        #expect(set.storage.retentionHours == 24)
    }

    @Test(arguments: [0, -1, 87_601]) func aRetentionOutside1To87600HoursIsRefused(hours: Int) {
        #expect {
            try Configuration.load(file: nil, environment: ["PUSH_RELAY_STORAGE_RETENTION_HOURS": "\(hours)"])
        } throws: { error in
            (error as? Configuration.Invalid)?.problems.contains { $0.hasPrefix("storage.retentionHours:") } == true
        }
    }

    @Test func theDeadlineAndThePoolHaveDefaultsAndAreSetByTheEnvironment() throws {
        let defaults = try Configuration.load(file: nil, environment: [:])
        #expect(defaults.storage.requestDeadlineMilliseconds == 5000 && defaults.storage.postgres.poolSize == 4)
        #expect(defaults.storage.postgres.statementTimeoutSeconds == 10)
        let set = try Configuration.load(
            file: nil,
            environment: [
                "PUSH_RELAY_STORAGE_REQUEST_DEADLINE_MILLISECONDS": "1500",
                "PUSH_RELAY_STORAGE_POSTGRES_POOL_SIZE": "8",
                "PUSH_RELAY_STORAGE_POSTGRES_STATEMENT_TIMEOUT_SECONDS": "60",
            ]
        )
        #expect(set.storage.requestDeadlineMilliseconds == 1500 && set.storage.postgres.poolSize == 8)
        #expect(set.storage.postgres.statementTimeoutSeconds == 60)
    }

    @Test(arguments: [
        ("PUSH_RELAY_STORAGE_REQUEST_DEADLINE_MILLISECONDS", "0", "storage.requestDeadlineMilliseconds:"),
        ("PUSH_RELAY_STORAGE_POSTGRES_POOL_SIZE", "0", "storage.postgres.poolSize:"),
        ("PUSH_RELAY_STORAGE_POSTGRES_POOL_SIZE", "65", "storage.postgres.poolSize:"),
        ("PUSH_RELAY_STORAGE_POSTGRES_STATEMENT_TIMEOUT_SECONDS", "0", "storage.postgres.statementTimeoutSeconds:"),
        ("PUSH_RELAY_STORAGE_POSTGRES_STATEMENT_TIMEOUT_SECONDS", "601", "storage.postgres.statementTimeoutSeconds:"),
    ])
    func aDeadlineOrPoolOutOfRangeIsRefused(variable: String, value: String, problem: String) {
        #expect {
            try Configuration.load(file: nil, environment: [variable: value])
        } throws: { error in
            (error as? Configuration.Invalid)?.problems.contains { $0.hasPrefix(problem) } == true
        }
    }
}
