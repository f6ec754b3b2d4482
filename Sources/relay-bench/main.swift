import Foundation
import RelayCLI

/// `relay-bench jwt | apns | seed | fanout`: the numbers behind `make bench-apns` and `make bench`.
/// Never run by `make test`.
let usage = """
    usage: relay-bench <command> [options]
      \(JWTCommand.usage)
      \(APNsBenchCommand.usage)
      \(SeedCommand.usage)
      \(FanoutCommand.usage)
      \(TableCommand.usage)
    """

var words = Array(CommandLine.arguments.dropFirst())
let command = words.isEmpty ? "help" : words.removeFirst()
let status: Int32
do {
    let arguments = try Arguments(["help", "table"].contains(command) ? [] : words)
    switch command {
    case "table": status = try TableCommand.run(words)
    case "jwt": status = try JWTCommand.run(arguments)
    case "apns": status = try await APNsBenchCommand.run(arguments)
    case "seed": status = try await SeedCommand.run(arguments)
    case "fanout": status = try await FanoutCommand.run(arguments)
    case "help", "--help", "-h":
        print(usage)
        status = 0
    default:
        FileHandle.standardError.write(Data("unknown command '\(command)'\n\(usage)\n".utf8))
        status = 2
    }
} catch let problem as Arguments.Problem {
    FileHandle.standardError.write(Data("relay-bench: \(problem)\n\(usage)\n".utf8))
    status = 2
} catch {
    FileHandle.standardError.write(Data("relay-bench: \(error)\n".utf8))
    status = 1
}
exit(status)
