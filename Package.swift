// swift-tools-version:6.0
import PackageDescription

/// PushRelay: a push-notification relay for Ditto chat apps. No package dependencies: C libraries come
/// from Debian through the `.systemLibrary` targets (see scripts/setup.sh).
let package = Package(
    name: "PushRelay",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "push-relay", targets: ["push-relay"])
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

        .target(name: "RelayCore"),
        .target(name: "RelayCrypto", dependencies: ["RelayCore", "COpenSSL"]),
        .target(name: "RelayCurl", dependencies: ["RelayCore", "CCurl"]),
        .target(name: "RelayAPNs", dependencies: ["RelayCore", "RelayCrypto", "RelayCurl"]),
        .target(name: "RelayFCM", dependencies: ["RelayCore", "RelayCrypto", "RelayCurl"]),
        .target(name: "MockHTTP2", dependencies: ["RelayCore", "CNghttp2", "COpenSSL"]),
        .target(name: "APNsMock", dependencies: ["RelayCore", "RelayCrypto", "MockHTTP2"]),
        .target(name: "FCMMock", dependencies: ["RelayCore", "RelayCrypto", "MockHTTP2"]),
        .target(name: "RelayStore", dependencies: ["RelayCore", "CSQLite"]),
        .target(name: "RelayHTTP", dependencies: ["RelayCore", "CMicroHTTPD"]),
        .target(
            name: "RelayServer",
            dependencies: ["RelayCore", "RelayCrypto", "RelayCurl", "RelayAPNs", "RelayStore", "RelayHTTP"]
        ),
        .target(name: "RelayCLI"),
        .executableTarget(
            name: "push-relay",
            dependencies: [
                "RelayCLI", "RelayCore", "RelayCrypto", "RelayCurl", "RelayAPNs", "APNsMock", "MockHTTP2", "FCMMock",
                "RelayStore", "RelayServer",
            ]
        ),
        .executableTarget(
            name: "relay-bench",
            dependencies: [
                "RelayCLI", "RelayCore", "RelayCrypto", "RelayCurl", "RelayAPNs", "APNsMock", "RelayStore",
                "RelayServer",
            ]
        ),

        .testTarget(name: "RelayCoreTests", dependencies: ["RelayCore"]),
        .testTarget(name: "RelayCryptoTests", dependencies: ["RelayCrypto"]),
        .testTarget(name: "APNsMockTests", dependencies: ["APNsMock", "RelayCrypto", "CCurl", "CNghttp2"]),
        .testTarget(name: "RelayAPNsTests", dependencies: ["RelayAPNs", "RelayCurl", "APNsMock", "RelayCrypto"]),
        .testTarget(
            name: "RelayFCMTests",
            dependencies: ["RelayFCM", "FCMMock", "RelayCore", "RelayCrypto", "RelayCurl"]
        ),
        .testTarget(
            name: "FCMMockTests",
            dependencies: ["FCMMock", "RelayFCM", "RelayCore", "RelayCrypto", "RelayCurl"]
        ),
        .testTarget(name: "RelayStoreTests", dependencies: ["RelayStore"]),
        .testTarget(name: "RelayHTTPTests", dependencies: ["RelayHTTP"]),
        .testTarget(name: "RelayServerTests", dependencies: ["RelayServer", "APNsMock", "RelayStore"]),
        // Runs the built `push-relay` binary as a process; depending on it makes SwiftPM build it first.
        .testTarget(name: "CLITests", dependencies: ["push-relay", "RelayFCM", "RelayCore"]),
    ],
    swiftLanguageModes: [.v6]
)
