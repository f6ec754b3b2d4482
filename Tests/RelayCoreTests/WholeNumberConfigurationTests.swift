import Foundation
import RelayCore
import Testing

/// A fraction or a number too large for an integer setting is named by its key path, in the file, in an
/// app and in `PUSH_RELAY_APPS`, beside the other problems.
@Suite struct WholeNumberConfigurationTests {
    typealias P = PlatformConfigurationTests

    @Test(arguments: [
        (#""pushDelaySeconds":1.5"#, "apps[0].pushDelaySeconds: must be a whole number"),
        (#""pushDelaySeconds":1e20"#, "apps[0].pushDelaySeconds: must be a whole number"),
        (#""limits":{"writesPerMinute":2.5}"#, "apps[0].limits.writesPerMinute: must be a whole number"),
    ])
    func aFractionInAnAppIsNamed(fields: String, problem: String) throws {
        let folder = try P.Folder()
        #expect(P.problems(try folder.appFile(fields)) == [problem])
    }

    @Test func aFractionInTheFileOrTheAppsVariableIsNamedWithTheOtherProblems() throws {
        let folder = try P.Folder()
        let file = try folder.write("relay.json", #"{"http": {"port": 1.5, "maxBodyBytes": 0}}"#)
        let problems = P.problems(file)
        #expect(problems.contains("http.port: must be a whole number"), "\(problems)")
        #expect(problems.contains { $0.hasPrefix("http.maxBodyBytes") }, "\(problems)")
        #expect(!problems.contains { $0.contains("not valid JSON") }, "\(problems)")
        let apps =
            #"[{"id":"chat","topic":"com.example.chat","apiKeySHA256":["\#(P.hash)"],"badgeUpdateSeconds":0.25}]"#
        #expect(
            P.problems(nil, environment: ["PUSH_RELAY_APPS": apps]) == [
                "apps[0].badgeUpdateSeconds: must be a whole number"
            ]
        )
        // The variable takes the apps array alone: a file's object around it is named as the variable's.
        #expect(
            P.problems(nil, environment: ["PUSH_RELAY_APPS": #"{"apps":\#(apps)}"#]) == [
                "PUSH_RELAY_APPS: must be a JSON array for apps (the array alone)"
            ]
        )
        // A whole number written with a fraction part is a whole number.
        #expect(P.problems(try folder.appFile(#""pushDelaySeconds":2.0"#)).isEmpty)
    }
}
