import Foundation
import RelayCore
import Testing

/// The `http` section's connection limits, deadlines, trusted proxies and TLS files, through the layers.
@Suite struct HTTPConfigurationTests {
    /// A temporary file holding `text`.
    func file(_ text: String, suffix: String = ".json") throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("http-\(UUID().uuidString)\(suffix)")
        try Data(text.utf8).write(to: url)
        return url.path
    }

    func problems(_ json: String, environment: [String: String] = [:]) throws -> [String] {
        let path = try file(json)
        do {
            _ = try Configuration.load(file: path, environment: environment)
            return []
        } catch {
            return error.problems
        }
    }

    @Test func defaultsHoldUpOnTheOpenInternet() throws {
        let http = try Configuration.load(file: nil, environment: [:]).http
        #expect(http.maxConnections == 10_000)
        #expect(http.maxConnectionsPerAddress == 64)
        #expect(http.headerTimeoutSeconds == 10)
        #expect(http.bodyTimeoutSeconds == 30)
        #expect(http.trustedProxies.isEmpty)
        #expect(http.tls == .init())
        #expect(!http.tls.isEnabled)
    }

    @Test func connectionSlotKeysHaveDefaultsVariablesAndChecks() throws {
        let http = try Configuration.load(file: nil, environment: [:]).http
        #expect(http.maxConnectionsPerPrefix == 256)
        #expect(http.ipv4PrefixLength == 24)
        #expect(http.ipv6PrefixLength == 64)
        #expect(http.minBodyBytesPerSecond == 1024)
        #expect(http.bodyRateGraceSeconds == 5)
        let set = try Configuration.load(
            file: nil,
            environment: [
                "PUSH_RELAY_HTTP_MAX_CONNECTIONS_PER_PREFIX": "32", "PUSH_RELAY_HTTP_IPV4_PREFIX_LENGTH": "16",
                "PUSH_RELAY_HTTP_IPV6_PREFIX_LENGTH": "48", "PUSH_RELAY_HTTP_MIN_BODY_BYTES_PER_SECOND": "512",
                "PUSH_RELAY_HTTP_BODY_RATE_GRACE_SECONDS": "2",
            ]
        ).http
        #expect(set.maxConnectionsPerPrefix == 32)
        #expect(set.ipv4PrefixLength == 16)
        #expect(set.ipv6PrefixLength == 48)
        #expect(set.minBodyBytesPerSecond == 512)
        #expect(set.bodyRateGraceSeconds == 2)
        #expect(
            try problems(
                #"{"http":{"maxConnectionsPerPrefix":0,"ipv4PrefixLength":33,"ipv6PrefixLength":0,"minBodyBytesPerSecond":0,"bodyRateGraceSeconds":-1}}"#
            ) == [
                "http.maxConnectionsPerPrefix: must be 1...1000000",
                "http.ipv4PrefixLength: must be 1...32",
                "http.ipv6PrefixLength: must be 1...128",
                "http.minBodyBytesPerSecond: must be positive",
                "http.bodyRateGraceSeconds: must be 1...86400",
            ]
        )
    }

    @Test func aFileAndVariablesSetTheNewKeys() throws {
        let certificate = try file("certificate", suffix: ".pem")
        let key = try file("key", suffix: ".key")
        let path = try file(
            #"{"http":{"maxConnectionsPerAddress":8,"headerTimeoutSeconds":5,"trustedProxies":["10.0.0.0/8"],"tls":{"certificateFile":"\#(certificate)"}}}"#
        )
        let configuration = try Configuration.load(
            file: path,
            environment: [
                "PUSH_RELAY_HTTP_TLS_KEY_FILE": key, "PUSH_RELAY_HTTP_BODY_TIMEOUT_SECONDS": "7",
                "PUSH_RELAY_HTTP_MAX_CONNECTIONS": "20000",
            ]
        )
        #expect(configuration.http.maxConnectionsPerAddress == 8)
        #expect(configuration.http.headerTimeoutSeconds == 5)
        #expect(configuration.http.bodyTimeoutSeconds == 7)
        #expect(configuration.http.maxConnections == 20_000)
        #expect(configuration.http.trustedProxies == ["10.0.0.0/8"])
        #expect(configuration.http.tls == .init(certificateFile: certificate, keyFile: key))
        #expect(configuration.http.tls.isEnabled)

        let variables = try Configuration.load(
            file: nil,
            environment: [
                "PUSH_RELAY_HTTP_TLS_CERTIFICATE_FILE": certificate, "PUSH_RELAY_HTTP_TLS_KEY_FILE": key,
                "PUSH_RELAY_HTTP_TRUSTED_PROXIES": #"["::1","192.168.0.0/16"]"#,
            ]
        )
        #expect(variables.http.tls == .init(certificateFile: certificate, keyFile: key))
        #expect(variables.http.trustedProxies == ["::1", "192.168.0.0/16"])
    }

    /// `config check` prints every setting, the unset TLS files as null.
    @Test func thePrintoutShowsTheTLSFilesEvenWhenUnset() throws {
        let printed = try Configuration.load(file: nil, environment: [:]).redactedJSON
        let object = try #require(try JSONSerialization.jsonObject(with: Data(printed.utf8)) as? [String: Any])
        let http = try #require(object["http"] as? [String: Any])
        let tls = try #require(http["tls"] as? [String: Any])
        #expect(tls["certificateFile"] is NSNull)
        #expect(tls["keyFile"] is NSNull)
        for key in ["maxConnectionsPerAddress", "headerTimeoutSeconds", "bodyTimeoutSeconds", "trustedProxies"] {
            #expect(http[key] != nil, "\(key) missing from \(printed)")
        }
    }

    @Test func badValuesAreEachNamed() throws {
        let found = try problems(
            #"{"http":{"maxConnections":0,"maxConnectionsPerAddress":0,"headerTimeoutSeconds":0,"bodyTimeoutSeconds":-1,"trustedProxies":["10.0.0.0/8","10.0.0.0/33","proxy.internal"],"tls":{"certificateFile":"/nonexistent/cert.pem"}}}"#
        )
        #expect(
            found == [
                "http.maxConnections: must be 1...1000000",
                "http.maxConnectionsPerAddress: must be 1...1000000",
                "http.headerTimeoutSeconds: must be 1...86400",
                "http.bodyTimeoutSeconds: must be 1...86400",
                "http.trustedProxies[1]: '10.0.0.0/33' is not an IP address or CIDR range (e.g. 10.0.0.0/8, ::1)",
                "http.trustedProxies[2]: 'proxy.internal' is not an IP address or CIDR range (e.g. 10.0.0.0/8, ::1)",
                "http.tls.keyFile: required with certificateFile",
            ]
        )
        #expect(try problems(#"{"http":{"maxConnections":1000001}}"#) == ["http.maxConnections: must be 1...1000000"])
        // libmicrohttpd reads its timeout as 32 bits: 2^32 + 1 seconds would be one second.
        #expect(
            try problems(#"{"http":{"connectionTimeoutSeconds":4294967297}}"#) == [
                "http.connectionTimeoutSeconds: must be 1...86400"
            ]
        )
        #expect(
            try problems(#"{"http":{"tls":{"keyFile":"/nonexistent/key.pem"}}}"#) == [
                "http.tls.certificateFile: required with keyFile"
            ]
        )
        #expect(
            try problems(#"{"http":{"tls":{"certificateFile":"/nonexistent/c.pem","keyFile":"/nonexistent/k.pem"}}}"#)
                == [
                    "http.tls.certificateFile: cannot read /nonexistent/c.pem (no such file)",
                    "http.tls.keyFile: cannot read /nonexistent/k.pem (no such file)",
                ]
        )
        #expect(try problems(#"{"http":{"tls":{"cert":"x"}}}"#) == ["http.tls.cert: unknown key"])
        // The reason is named: a directory is no certificate.
        let folder = FileManager.default.temporaryDirectory.path
        #expect(
            try problems(#"{"http":{"tls":{"certificateFile":"\#(folder)","keyFile":"\#(folder)"}}}"#) == [
                "http.tls.certificateFile: cannot read \(folder) (a directory)",
                "http.tls.keyFile: cannot read \(folder) (a directory)",
            ]
        )
    }

    /// Without apps the development app serves: on a loopback host only, so a production relay whose apps
    /// were not passed in does not come up with a printed key and mock push services on a public address.
    @Test func theDevelopmentAppListensOnLoopbackOnly() throws {
        // `127.0.0.08` is no number to the resolver (a leading 0 is octal): it would be looked up as a name.
        for host in ["0.0.0.0", "::", "192.0.2.7", "relay.example.com", "127.0.0.08", "127.09.0.1"] {
            let found = try problems(#"{"http":{"host":"\#(host)"}}"#)
            #expect(found.count == 1 && found[0].hasPrefix("apps: none configured"), "\(host): \(found)")
            #expect(found.first?.contains("not '\(host)'") == true)
        }
        for host in ["127.0.0.1", "::1", "localhost", "127.0.0.2", "127.000.000.001", "127.0.0.07"] {
            #expect(try problems(#"{"http":{"host":"\#(host)"}}"#) == [], "\(host)")
        }
        let app = #"{"id":"a","topic":"com.example.a","apiKeySHA256":["\#(String(repeating: "a", count: 64))"]}"#
        #expect(try problems(#"{"http":{"host":"0.0.0.0"},"apps":[\#(app)]}"#) == [])
    }

    /// A listener's address is bound as written: `[::1]` is a URL's spelling the resolver cannot find.
    @Test func aListenerAddressHasNoBrackets() throws {
        #expect(
            try problems(#"{"http":{"host":"[::1]"}}"#)
                == ["http.host: '[::1]' is a URL's spelling: write the address without brackets ('::1')"]
        )
        #expect(
            try problems(#"{"http":{"admin":{"host":"[::]"}}}"#)
                == ["http.admin.host: '[::]' is a URL's spelling: write the address without brackets ('::')"]
        )
    }

    /// The close delay is off by default and must end before the shutdown's bound.
    @Test func theCloseDelayEndsBeforeTheShutdownBound() throws {
        #expect(try Configuration.load(file: nil, environment: [:]).http.closeDelaySeconds == 0)
        let set = try Configuration.load(file: nil, environment: ["PUSH_RELAY_HTTP_CLOSE_DELAY_SECONDS": "29"])
        #expect(set.http.closeDelaySeconds == 29)
        let problem = "http.closeDelaySeconds: must be 0 or more and less than shutdownTimeoutSeconds (30)"
        #expect(try problems(#"{"http":{"closeDelaySeconds":30}}"#) == [problem])
        #expect(try problems(#"{"http":{"closeDelaySeconds":-1}}"#) == [problem])
        #expect(try problems(#"{"http":{"closeDelaySeconds":5},"shutdownTimeoutSeconds":6}"#).isEmpty)
    }
}
