#include "trace.h"

#include <cctype>
#include <limits>
#include <sstream>

namespace nvmev {

namespace {

[[noreturn]] void fail(const std::string& name, unsigned line, const std::string& msg) {
  throw TraceError(name + ":" + std::to_string(line) + ": " + msg);
}

// Decimal number with an optional K/M/G suffix; nullopt on any error.
std::optional<uint64_t> parse_size(const std::string& s) {
  if (s.empty() || !std::isdigit(static_cast<unsigned char>(s[0]))) return std::nullopt;
  size_t pos = 0;
  uint64_t v;
  try {
    v = std::stoull(s, &pos, 10);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  unsigned shift = 0;
  if (pos < s.size()) {
    if (pos + 1 != s.size()) return std::nullopt;
    switch (std::toupper(static_cast<unsigned char>(s[pos]))) {
      case 'K': shift = 10; break;
      case 'M': shift = 20; break;
      case 'G': shift = 30; break;
      default: return std::nullopt;
    }
  }
  if (shift && v > (std::numeric_limits<uint64_t>::max() >> shift)) return std::nullopt;
  return v << shift;
}

}  // namespace

std::vector<TraceOp> parse_trace(std::istream& in, const std::string& name) {
  std::vector<TraceOp> ops;
  std::string text;
  unsigned line = 0;
  while (std::getline(in, text)) {
    line++;
    auto hash = text.find('#');
    if (hash != std::string::npos) text.erase(hash);
    std::istringstream ss(text);
    std::vector<std::string> tok;
    for (std::string t; ss >> t;) tok.push_back(t);
    if (tok.empty()) continue;

    TraceOp op;
    op.line = line;
    size_t i = 0;
    if (tok[0][0] == '@') {
      auto at = parse_size(tok[0].substr(1));
      if (!at || tok[0].find_first_not_of("0123456789", 1) != std::string::npos)
        fail(name, line, "bad submit time '" + tok[0] + "' (expected @<nanoseconds>)");
      op.at_ns = *at;
      i = 1;
    }
    if (i >= tok.size()) fail(name, line, "submit time without an operation");
    const std::string& verb = tok[i++];
    if (verb.size() != 1) fail(name, line, "unknown operation '" + verb + "' (R, W, T, F or B)");
    auto args_left = [&] { return tok.size() - i; };
    auto range = [&](uint8_t o) {
      if (args_left() < 2) fail(name, line, verb + " needs <offset> <length>");
      auto off = parse_size(tok[i]);
      if (!off) fail(name, line, "bad offset '" + tok[i] + "'");
      auto len = parse_size(tok[i + 1]);
      if (!len || *len == 0) fail(name, line, "bad length '" + tok[i + 1] + "' (must be > 0)");
      op.cmd.op = o;
      op.cmd.off = *off;
      op.cmd.len = *len;
      i += 2;
    };
    switch (verb[0]) {
      case 'R': range(FTL_OP_READ); break;
      case 'W': range(FTL_OP_WRITE); break;
      case 'T': range(FTL_OP_TRIM); break;
      case 'F': op.cmd.op = FTL_OP_FLUSH; break;
      case 'B':
        if (op.at_ns) fail(name, line, "a barrier takes no submit time");
        op.barrier = true;
        break;
      default: fail(name, line, "unknown operation '" + verb + "' (R, W, T, F or B)");
    }
    for (; i < tok.size(); i++) {
      const std::string& t = tok[i];
      if (op.barrier || op.cmd.op != FTL_OP_WRITE)
        fail(name, line, "unexpected '" + t + "': hints apply to writes only");
      if (op.cmd.hint != FTL_HINT_NONE)
        fail(name, line, "more than one hint: append and overwrite are exclusive");
      if (t == "overwrite") {
        op.cmd.hint = FTL_HINT_OVERWRITE;
      } else if (t.rfind("append=", 0) == 0) {
        auto prev = parse_size(t.substr(7));
        if (!prev) fail(name, line, "bad append offset '" + t.substr(7) + "'");
        op.cmd.hint = FTL_HINT_APPEND;
        op.cmd.hint_prev_off = *prev;
      } else {
        fail(name, line, "unexpected '" + t + "' (append=<offset> or overwrite)");
      }
    }
    ops.push_back(op);
  }
  if (in.bad()) throw TraceError(name + ": read error");
  return ops;
}

TraceResult run_trace(Model& model, const std::vector<TraceOp>& ops, unsigned queue_depth) {
  Engine e(model, queue_depth);
  e.begin_phase();
  for (const auto& op : ops) {
    if (op.barrier)
      e.drain();
    else
      e.submit(op.cmd, op.at_ns.value_or(0));
  }
  TraceResult r;
  r.total = e.end_phase();
  for (uint8_t o = 0; o < FTL_OP_NR; o++) r.per_op[o] = e.op_result(o);
  return r;
}

}  // namespace nvmev
