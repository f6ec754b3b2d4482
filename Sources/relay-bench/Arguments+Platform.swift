import RelayCLI
import RelayCore

extension Arguments {
    /// `--platform`: `ios` (default: APNs), `android` (FCM) or `web` (Web Push).
    /// - Throws: ``Arguments/Problem`` naming the allowed values for another word.
    func platform() throws -> Platform {
        let name = value("platform", default: Platform.ios.rawValue)
        guard let platform = Platform(rawValue: name) else {
            throw Problem(description: "--platform \(Platform.refusal(of: name))")
        }
        return platform
    }
}
