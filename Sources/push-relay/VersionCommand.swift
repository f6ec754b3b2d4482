import APNsMock
import RelayAllocator
import RelayCLI
import RelayCore
import RelayCrypto
import RelayCurl
import RelayHTTP
import RelaySQLite
import RelayStore

/// `push-relay version`: PushRelay's version and every C library it links, with their versions (jemalloc's with
/// ``Allocator/warning`` when it does not serve `malloc`).
enum VersionCommand {
    static let version = BuildInfo.version

    static func run(_ words: [String]) throws -> Int32 {
        if try Arguments(words, switches: ["help"], options: [], positional: 0).flag("help") {
            say("usage: push-relay version\n  prints PushRelay's version and the C libraries it links")
            return 0
        }
        let curl = LibcurlInfo.current
        say("push-relay \(version)")
        say(curl.summary)
        say("nghttp2 \(MockAPNsServer.nghttp2Version) (mock APNs)")
        say(openSSLVersion)
        say("SQLite \(SQLiteStore.libraryVersion)")
        say("libmicrohttpd \(HTTPServer.libraryVersion)")
        say(Allocator.summary)
        if !curl.hasHTTP2 { say("WARNING: this libcurl has no HTTP/2; the relay will not start") }
        if let warning = Allocator.warning { say("WARNING: \(warning)") }
        if !curl.isAtLeast8 { say("WARNING: libcurl below 8 resets every finished HTTP/2 stream; use 8.x") }
        return 0
    }
}
