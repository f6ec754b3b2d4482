import Foundation
import RelayCLI

/// `relay-bench jwt | apns | fcm | web | seed | fanout | cluster | latency | table`: the numbers behind
/// `make bench-apns` and `make bench`. Never run by `make test`.
let usage = """
    usage: relay-bench <command> [options]
      \(JWTCommand.usage)
      \(APNsBenchCommand.usage)
      \(FCMBenchCommand.usage)
      \(WebPushBenchCommand.usage)
      \(SeedCommand.usage)
      \(FanoutCommand.usage)
      \(ClusterCommand.usage)
      \(LatencyCommand.usage)
      \(TableCommand.usage)
    """

// A write to a peer that left must fail with EPIPE, not end the process.
signal(SIGPIPE, SIG_IGN)

await CommandLineTool.run(name: "relay-bench", usage: usage) { command, words in
    switch command {
    case "table": try TableCommand.run(words)
    case "jwt": try await JWTCommand.run(try Arguments(words))
    case "apns": try await APNsBenchCommand.run(try Arguments(words, switches: ["distinct-tokens"]))
    case "fcm": try await FCMBenchCommand.run(try Arguments(words, switches: ["distinct-tokens"]))
    case "web": try await WebPushBenchCommand.run(try Arguments(words, switches: ["distinct-tokens"]))
    case "seed": try await SeedCommand.run(try Arguments(words))
    case "fanout": try await FanoutCommand.run(try Arguments(words, switches: ["badge"]))
    case "cluster": try await ClusterCommand.run(try Arguments(words))
    case "latency": try await LatencyCommand.run(try Arguments(words))
    default: nil
    }
}
