/// How long, in seconds, a test waits for an event that must happen (a held sync entered, a handler
/// claimed, a launch completed) before it gives up and fails: a guard against a hang, never a
/// measurement, the same bound as the tests' `.timeLimit(.minutes(1))`. Blocking tests run on their
/// own threads (``BlockingTests``), so an async test's tasks never wait for them; a correct run, even
/// under the thread sanitizer on two cores, never comes near it.
public let hangGuard: Double = 60
