import Foundation
import RelayCLI
import RelayCore
import RelayStrictJSON

/// The configuration the commands that run or probe a relay read (`serve`, `config check`, `health`): the
/// defaults, then `--config FILE` (or `PUSH_RELAY_CONFIG`) checked as strict JSON, then `PUSH_RELAY_*` (a
/// JSON value, such as `PUSH_RELAY_APPS`, checked the same way). A syntax error is reported by line and
/// column without jansson's excerpt of the text, which may be part of a secret.
enum ConfigurationFile {
    /// Loads the configuration for `arguments` (its `config` option) and the process environment.
    /// - Throws: ``RelayCore/Configuration/Invalid`` listing every problem, a file's syntax error with its
    ///   line and column.
    static func load(
        _ arguments: Arguments
    ) throws(Configuration.Invalid) -> (configuration: Configuration, deprecations: [String]) {
        let environment = ProcessInfo.processInfo.environment
        return try Configuration.loadNoticingDeprecations(
            file: file(arguments, environment),
            environment: environment,
            strictSyntax: StrictJSON.configurationProblem
        )
    }

    /// The layers read and decoded, not validated, with the problems met on the way
    /// (``RelayCore/Configuration/read(file:environment:strictSyntax:)``), for `config check`.
    static func read(
        _ arguments: Arguments
    ) throws(Configuration.Invalid) -> (configuration: Configuration, deprecations: [String], problems: [String]) {
        let environment = ProcessInfo.processInfo.environment
        return try Configuration.read(
            file: file(arguments, environment),
            environment: environment,
            strictSyntax: StrictJSON.configurationProblem
        )
    }

    /// The file `--config` or `PUSH_RELAY_CONFIG` names.
    private static func file(_ arguments: Arguments, _ environment: [String: String]) -> String? {
        arguments.value("config") ?? environment[Configuration.fileVariable]
    }
}
