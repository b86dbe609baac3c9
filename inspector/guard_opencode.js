// compaction-inspector guard for opencode (written by `compaction-inspector guard install --agent opencode`).
// Before opencode compacts a session (its `experimental.session.compacting` hook), this runs the guard on that
// session, as Claude Code runs it as a PreCompact hook, and adds what the guard prints (the user's words that
// still stand, for the summary to keep verbatim) to the compaction prompt. On any error or timeout it adds nothing.
import { spawn } from "node:child_process"
import { homedir } from "node:os"
import { isAbsolute, join } from "node:path"

const COMMAND = ["compaction-inspector", "guard"]
const SECONDS = 10

// Where opencode keeps its sessions: $OPENCODE_DB (absolute, or in its data folder), else opencode.db there.
function database() {
  const data = join(process.env.XDG_DATA_HOME || join(homedir(), ".local", "share"), "opencode")
  const named = process.env.OPENCODE_DB
  return named ? (isAbsolute(named) ? named : join(data, named)) : join(data, "opencode.db")
}

function guard(sessionID) {
  return new Promise((resolve) => {
    let out = ""
    // its own process group, so a timeout ends whatever the guard started too, not only the guard
    const child = spawn(COMMAND[0], COMMAND.slice(1), { stdio: ["pipe", "pipe", "ignore"], detached: true })
    const stop = () => { try { process.kill(-child.pid, "SIGKILL") } catch { child.kill("SIGKILL") } }
    const timer = setTimeout(() => { stop(); child.stdout.destroy(); resolve("") }, SECONDS * 1000)
    child.on("error", () => { clearTimeout(timer); resolve("") })
    child.on("close", (code) => { clearTimeout(timer); resolve(code === 0 ? out.trim() : "") })
    child.stdout.on("data", (chunk) => { out += chunk })
    child.stdin.on("error", () => {})
    const request = { hook_event_name: "PreCompact", transcript_path: database(), transcript_session_id: sessionID }
    child.stdin.end(JSON.stringify(request))
  })
}

export const CompactionInspectorGuard = async () => ({
  "experimental.session.compacting": async (input, output) => {
    try {
      const text = await guard(input.sessionID)
      if (text) output.context.push(text)
    } catch {}
  },
})
