// swift-tools-version:6.0
import PackageDescription

/// PushRelay: a push-notification relay for Ditto chat apps. No package dependencies: C libraries come
/// from Debian through the `.systemLibrary` targets (see scripts/setup.sh).
let package = Package(
    name: "PushRelay",
    // The floor PushRelayClient needs, the Ditto chat SDK's: the server targets run on Linux.
    platforms: [.macOS(.v12), .iOS(.v15)],
    products: [
        .executable(name: "push-relay", targets: ["push-relay"]),
        .library(name: "PushRelayClient", targets: ["PushRelayClient"]),
    ],
    targets: [
        // Without pkgConfig: the libcurl 8 of bookworm-backports lists `-isystem /usr/include/mit-krb5` in
        // its Cflags, which SwiftPM drops with a warning on every build; its headers are in the compiler's
        // default path (/usr/include/<multiarch>/curl) and the module map links `curl`.
        .systemLibrary(name: "CCurl"),
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl"),
        .systemLibrary(name: "CNghttp2", pkgConfig: "libnghttp2"),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3"),
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd"),
        .systemLibrary(name: "CPostgres", pkgConfig: "libpq"),
        .systemLibrary(name: "CRdKafka", pkgConfig: "rdkafka"),
        .systemLibrary(name: "CJansson", pkgConfig: "jansson"),
        .systemLibrary(name: "CJemalloc", pkgConfig: "jemalloc"),

        .target(name: "RelayCore"),
        .target(name: "RelayAllocator", dependencies: ["CJemalloc"]),
        .target(name: "RelayCrypto", dependencies: ["RelayCore", "RelayStrictJSON", "COpenSSL"]),
        .target(name: "RelayCurl", dependencies: ["RelayCore", "CCurl"]),
        // APNs' vocabulary, shared by its transport and its mock: the request and answer, the reasons and
        // their decision table, the payload rendered from the shown message. No networking.
        .target(name: "APNsCore", dependencies: ["RelayCore"]),
        // FCM's vocabulary, shared by its transport and its mock: the v1 message rendered from the shown
        // message, the answer, the error codes and their decision table. No networking.
        .target(name: "FCMCore", dependencies: ["RelayCore", "RelayCrypto", "RelayStrictJSON"]),
        .target(name: "RelayAPNs", dependencies: ["APNsCore", "RelayCore", "RelayCrypto", "RelayCurl"]),
        .target(name: "RelayFCM", dependencies: ["FCMCore", "RelayCore", "RelayCrypto", "RelayCurl"]),
        .target(name: "MockHTTP2", dependencies: ["RelayCore", "CNghttp2", "COpenSSL"]),
        .target(name: "APNsMock", dependencies: ["APNsCore", "RelayCore", "RelayCrypto", "MockHTTP2"]),
        .target(name: "FCMMock", dependencies: ["FCMCore", "RelayCore", "RelayCrypto", "MockHTTP2"]),
        // Web Push's vocabulary, shared by its transport and its mock: subscriptions, RFC 8291 message
        // encryption, RFC 8292 VAPID, topics. No networking.
        .target(name: "WebPushCore", dependencies: ["RelayCore", "RelayCrypto", "COpenSSL"]),
        // The mock Web Push service: makes subscriptions, checks VAPID, opens and checks each message.
        .target(name: "WebPushMock", dependencies: ["WebPushCore", "MockHTTP2", "RelayCore", "RelayCrypto"]),
        // The outbox's way to browsers: Web Push requests on libcurl, guarded as URLs users give.
        .target(name: "RelayWebPush", dependencies: ["RelayCore", "RelayCrypto", "RelayCurl", "WebPushCore"]),
        // The Store protocol, its models and the rules and SQL text both engines share; no database library.
        .target(name: "RelayStore", dependencies: ["RelayCore"]),
        // The Store on a SQLite file, the default engine.
        .target(name: "RelaySQLite", dependencies: ["RelayCore", "RelayStore", "CSQLite"]),
        // The Store on PostgreSQL (libpq), beside SQLiteStore; `storage.postgres.url` selects it.
        .target(name: "RelayPostgres", dependencies: ["RelayCore", "RelayStore", "CPostgres"]),
        .target(name: "RelayHTTP", dependencies: ["RelayCore", "RelayStrictJSON", "CMicroHTTPD"]),
        .target(name: "RelayKafka", dependencies: ["RelayCore", "CRdKafka"]),
        .target(name: "RelayAuth", dependencies: ["RelayCore", "RelayCrypto", "RelayCurl"]),
        // The consumer of each app's Ditto CDC topics: Kafka records into the store's DittoMirror.
        .target(
            name: "RelayDittoKafka",
            dependencies: ["RelayCore", "RelayStore", "RelayOutbox", "RelayKafka", "RelayStrictJSON"]
        ),
        // The outbox (claim loop, lanes, dispatcher, feedback): above the store and the transport protocol,
        // knowing no push service.
        .target(name: "RelayOutbox", dependencies: ["RelayCore", "RelayCrypto", "RelayCurl", "RelayStore"]),
        .target(
            name: "RelayServer",
            dependencies: [
                "RelayCore", "RelayCrypto", "RelayCurl", "RelayAPNs", "RelayFCM", "FCMCore", "RelayStore",
                "RelayHTTP", "RelayAuth", "RelayOutbox", "RelayDittoKafka", "WebPushCore", "RelayWebPush",
                "RelayStrictJSON",
            ]
        ),
        .target(name: "RelayCLI", dependencies: ["RelayCore", "RelayCrypto"]),
        // Strict JSON for the configuration file (jansson): line and column of the first error.
        .target(name: "RelayStrictJSON", dependencies: ["CJansson"]),
        // Shared by test targets only: the one way to start a relay in tests (`TestRelay`: in-process router,
        // live socket, or a `push-relay serve` process) and its mocks (`RelayTestBed`), processes, test
        // servers and a test identity provider.
        .target(
            name: "RelayTestSupport",
            dependencies: [
                "RelayCore", "RelayCrypto", "RelayHTTP", "RelayServer", "RelayStore", "RelaySQLite", "RelayPostgres",
                "RelayOutbox", "APNsMock", "FCMMock", "CSQLite",
            ]
        ),
        // The app-side client: Foundation only (scripts/check-client.sh), so an iOS app adds this package.
        .target(name: "PushRelayClient"),
        .executableTarget(
            name: "push-relay",
            dependencies: [
                "RelayCLI", "RelayCore", "RelayCrypto", "RelayCurl", "APNsCore", "RelayAPNs", "APNsMock", "MockHTTP2",
                "FCMCore", "FCMMock", "RelayFCM", "RelayStore", "RelaySQLite", "RelayPostgres", "RelayHTTP",
                "RelayServer", "RelayAuth", "RelayKafka", "RelayDittoKafka", "RelayStrictJSON", "WebPushMock",
                "WebPushCore", "RelayWebPush", "RelayAllocator",
            ]
        ),
        .executableTarget(
            name: "relay-bench",
            dependencies: [
                "RelayCLI", "RelayCore", "RelayCrypto", "RelayCurl", "APNsCore", "RelayAPNs", "APNsMock", "FCMCore",
                "RelayFCM", "RelayStore", "RelaySQLite", "RelayServer", "RelayPostgres", "RelayTestSupport",
                "RelayWebPush", "WebPushCore", "WebPushMock", "RelayAllocator",
            ]
        ),

        .testTarget(name: "RelayCoreTests", dependencies: ["RelayCore"]),
        .testTarget(name: "RelayCryptoTests", dependencies: ["RelayCrypto", "RelayTestSupport"]),
        .testTarget(name: "APNsCoreTests", dependencies: ["APNsCore", "RelayCore"]),
        .testTarget(name: "FCMCoreTests", dependencies: ["FCMCore", "RelayCore", "RelayCrypto"]),
        .testTarget(name: "WebPushCoreTests", dependencies: ["WebPushCore", "RelayCrypto"]),
        .testTarget(
            name: "WebPushMockTests",
            dependencies: [
                "WebPushMock", "WebPushCore", "MockHTTP2", "RelayCore", "RelayCrypto", "RelayCurl", "RelayTestSupport",
                // `mock-webpush --new-subscription` runs as a process; depending on it makes SwiftPM build it.
                "push-relay",
            ]
        ),
        .testTarget(
            name: "RelayWebPushTests",
            dependencies: ["RelayWebPush", "WebPushMock", "WebPushCore", "RelayCore", "RelayCrypto", "RelayCurl"]
        ),
        .testTarget(name: "APNsMockTests", dependencies: ["APNsMock", "APNsCore", "RelayCrypto", "CCurl", "CNghttp2"]),
        .testTarget(name: "MockHTTP2Tests", dependencies: ["MockHTTP2", "RelayCurl"]),
        .testTarget(
            name: "RelayAPNsTests",
            dependencies: [
                "RelayAPNs", "APNsCore", "RelayCurl", "APNsMock", "RelayCrypto", "RelayPostgres", "RelayTestSupport",
            ]
        ),
        .testTarget(
            name: "RelayFCMTests",
            dependencies: ["RelayFCM", "FCMCore", "FCMMock", "RelayCore", "RelayCrypto", "RelayCurl"]
        ),
        .testTarget(
            name: "FCMMockTests",
            dependencies: ["FCMMock", "FCMCore", "RelayFCM", "RelayCore", "RelayCrypto", "RelayCurl"]
        ),
        // The store conformance suite: each test runs on both engines (StoreKind).
        .testTarget(
            name: "RelayStoreTests",
            dependencies: ["RelayStore", "RelaySQLite", "RelayPostgres", "RelayTestSupport", "APNsCore"]
        ),
        .testTarget(name: "RelayHTTPTests", dependencies: ["RelayHTTP", "RelayTestSupport"]),
        .testTarget(name: "RelayKafkaTests", dependencies: ["RelayKafka"]),
        .testTarget(
            name: "RelayDittoKafkaTests",
            dependencies: ["RelayDittoKafka", "RelayKafka", "RelayStore", "RelayOutbox", "RelayCore"]
        ),
        .testTarget(
            name: "RelayAuthTests",
            dependencies: ["RelayAuth", "RelayCrypto", "RelayHTTP", "COpenSSL", "RelayTestSupport"]
        ),
        .testTarget(
            name: "RelayServerTests",
            dependencies: [
                "RelayServer", "RelayOutbox", "APNsMock", "FCMMock", "RelayStore", "RelaySQLite", "RelayPostgres",
                "RelayKafka", "RelayTestSupport", "WebPushCore", "WebPushMock", "RelayAPNs", "RelayFCM", "RelayWebPush",
                // `TestRelay`'s process mode runs `push-relay serve`; depending on it makes SwiftPM build it.
                "push-relay",
            ]
        ),
        // Runs the built `push-relay` binary as a process; depending on it makes SwiftPM build it first.
        .testTarget(
            name: "CLITests",
            dependencies: [
                "push-relay", "RelayFCM", "FCMCore", "RelayCore", "RelayStore", "RelaySQLite", "RelayPostgres",
                "RelayKafka", "RelayTestSupport",
            ]
        ),
        .testTarget(
            name: "PushRelayClientTests",
            dependencies: [
                "PushRelayClient", "RelayServer", "RelayStore", "RelaySQLite", "RelayHTTP", "RelayCore", "RelayCrypto",
                "APNsMock", "RelayTestSupport",
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
