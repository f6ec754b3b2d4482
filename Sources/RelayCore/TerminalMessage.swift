/// An error whose ``message`` alone tells a person at a terminal what went wrong: its description adds what
/// logs want beside it (a code to search for), which a command's last line leaves out.
public protocol TerminalMessage: Error {
    var message: String { get }
}
