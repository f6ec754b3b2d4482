/// What this build of PushRelay is: `push-relay version` prints it, and `pushrelay_build_info` carries it.
public enum BuildInfo {
    /// PushRelay's version.
    public static let version = "0.1.0"
}
