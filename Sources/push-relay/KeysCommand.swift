import Foundation
import RelayCLI
import RelayCrypto

/// `push-relay keys new`: a new API key (32 random bytes, hex) and the SHA-256 the configuration stores.
enum KeysCommand {
    static func run(_ words: [String]) throws -> Int32 {
        let arguments = try Arguments(words, switches: ["help"], options: [], positional: 1)
        let usage = "usage: push-relay keys new\n  prints a new API key and its SHA-256 for apps[].apiKeySHA256"
        if arguments.flag("help") {
            say(usage)
            return 0
        }
        try arguments.requireSubcommand("new", usage: usage)
        let key = try APIKey.generate()
        say("API key: \(key)")
        say("apiKeySHA256: \(APIKey.hash(key))")
        return 0
    }
}
