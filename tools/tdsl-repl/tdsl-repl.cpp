//===- tdsl-repl.cpp - The interactive TDSL REPL ----------------------------===//
//
// Reads inputs (with llvm::LineEditor on a terminal, line by line otherwise),
// joins lines while brackets are open, dispatches meta-commands, and hands
// everything else to a Session.
//
//===----------------------------------------------------------------------===//
#include "compiler/Frontend/Builtins.h"
#include "compiler/Repl/Session.h"
#include "compiler/Target/Host.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/LineEditor/LineEditor.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <csignal>
#include <iostream>
#include <optional>
#include <utility>
#include <unistd.h>

using namespace tdsl;
namespace cl = llvm::cl;

namespace tdsl {
extern volatile pid_t replChildPid;
}

static cl::OptionCategory replCategory("tdsl-repl options");
static cl::list<std::string> files(cl::Positional, cl::desc("[file.tdsl ...]"),
                                   cl::cat(replCategory));
static cl::opt<bool> gpuBitcode(
    "gpu-bitcode",
    cl::desc("With CUDA: embed kernels as LLVM bitcode, for the CPU emulator "
             "of the tests (libtdsl_emu_cuda); a real driver rejects it"),
    cl::Hidden);
static cl::opt<std::string> target("target", cl::desc("cpu (default) or cuda"),
                                   cl::init("cpu"), cl::cat(replCategory));
static cl::opt<unsigned> optLevel("O", cl::desc("Optimization level (default 2)"),
                                  cl::Prefix, cl::init(2), cl::cat(replCategory));
static cl::list<std::string> includeDirs(
    "I", cl::desc("Add <dir> to the search path of 'import'"),
    cl::value_desc("dir"), cl::Prefix, cl::cat(replCategory));

namespace {

struct Command {
  const char *name;
  const char *args;
  const char *help;
};

const Command kCommands[] = {
    {"help", "", "this list"},
    {"load", "FILE", "define the functions and imports of FILE"},
    {"type", "EXPR", "the type of EXPR"},
    {"time", "[-k] EXPR", "run EXPR repeatedly: compile time, median and spread "
                          "of its kernels (-k: per kernel)"},
    {"ir", "[STAGE] EXPR", "IR of the program for EXPR after STAGE: tdsl "
                           "(default), linalg, tiled, bufferized, llvm"},
    {"target", "cpu|cuda", "where inputs run"},
    {"profile", "on|off", "print the kernels of each input after it runs"},
    {"vars", "", "live values: type, shape, bytes, where they are"},
    {"save", "NAME FILE", "write a value to FILE as .npy (a model: a file "
                          "per field, FILE their prefix)"},
    {"load-npy", "NAME FILE", "bind NAME to the array in a .npy FILE"},
    {"forget", "NAME", "drop a value"},
    {"reset", "", "forget every definition and binding"},
    {"quit", "", "leave (also Ctrl-D)"},
};

/// Unique prefix lookup: ":ty" is ":type"; "" when unknown or ambiguous.
std::string findCommand(llvm::StringRef word, std::string &error) {
  std::vector<std::string> hits;
  for (const Command &c : kCommands) {
    if (word == c.name)
      return c.name;
    if (llvm::StringRef(c.name).starts_with(word))
      hits.push_back(c.name);
  }
  // `:lo` is `:load`, not `:load-npy`: a hit that prefixes every other wins.
  for (const std::string &h : hits)
    if (llvm::all_of(hits, [&](const std::string &o) {
          return llvm::StringRef(o).starts_with(h);
        }))
      return h;
  if (hits.empty())
    error = "unknown command ':" + word.str() + "' (try :help)";
  else
    error = "ambiguous command ':" + word.str() + "' (" +
            llvm::join(hits, ", ") + ")";
  return "";
}

/// Bracket depth of `text`, ignoring strings and comments: input continues
/// while it is positive.
int openBrackets(llvm::StringRef text) {
  int depth = 0;
  bool inString = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (inString) {
      if (c == '\\')
        ++i;
      else if (c == '"' || c == '\n')
        inString = false;
      continue;
    }
    if (c == '"')
      inString = true;
    else if (c == '/' && i + 1 < text.size() && text[i + 1] == '/')
      while (i < text.size() && text[i] != '\n')
        ++i;
    else if (c == '(' || c == '[' || c == '{')
      ++depth;
    else if (c == ')' || c == ']' || c == '}')
      --depth;
  }
  return depth;
}

/// Adds `line` to the input being typed; the whole input once its brackets
/// have closed, nothing while it goes on.
std::optional<std::string> takeInput(std::string &pending, llvm::StringRef line) {
  pending += line;
  pending += "\n";
  if (openBrackets(pending) > 0)
    return std::nullopt;
  return std::exchange(pending, std::string());
}

/// Completed besides the built-ins' names (from the table in Builtins.def).
const char *const kKeywords[] = {"fn",    "return", "for",  "in",
                                 "parallel", "reduce", "yield", "if",
                                 "else",  "import", "true", "false"};

void interruptChild(int) {
  if (replChildPid > 0)
    kill(replChildPid, SIGKILL);
}

void removeStoresAndExit(int sig) {
  if (replChildPid > 0)
    kill(replChildPid, SIGKILL);
  removeValueStores();
  _exit(128 + sig);
}

class Repl {
public:
  Repl(Session &session, bool interactive)
      : session(session), interactive(interactive) {}

  /// Handles one complete input. Returns false to quit.
  bool handle(llvm::StringRef input) {
    llvm::StringRef text = input.trim();
    if (text.empty())
      return true;
    if (!text.starts_with(":")) {
      session.eval(input);
      return true;
    }
    auto [word, afterWord] = text.drop_front().split(' ');
    llvm::StringRef rest = afterWord.trim();
    std::string error;
    std::string cmd = findCommand(word, error);
    if (cmd.empty()) {
      llvm::WithColor::error(llvm::errs(), "tdsl-repl") << error << "\n";
      return true;
    }
    auto needArg = [&](const char *what) {
      if (!rest.empty())
        return true;
      llvm::WithColor::error(llvm::errs(), "tdsl-repl")
          << ":" << cmd << " needs " << what << "\n";
      return false;
    };
    if (cmd == "quit")
      return false;
    if (cmd == "help") {
      llvm::outs() << "Type definitions (fn, import), statements (x = ...) or an "
                      "expression to see its value.\nCommands (any unique "
                      "prefix works):\n";
      for (const Command &c : kCommands)
        llvm::outs() << llvm::formatv("  :{0,-8} {1,-14} {2}\n", c.name, c.args,
                                      c.help);
      llvm::outs().flush();
    } else if (cmd == "load") {
      if (needArg("a file"))
        session.loadFile(rest);
    } else if (cmd == "type") {
      if (needArg("an expression"))
        session.printType(rest);
    } else if (cmd == "time") {
      bool perKernel = rest.consume_front("-k");
      rest = rest.trim();
      if (needArg("an expression"))
        session.time(rest, perKernel);
    } else if (cmd == "ir") {
      std::string stage = "tdsl";
      auto [first, tail] = rest.split(' ');
      for (const char *s : {"tdsl", "linalg", "tiled", "bufferized", "llvm"})
        if (first == s && !tail.trim().empty()) {
          stage = s;
          rest = tail.trim();
        }
      if (needArg("an expression"))
        session.printIR(stage, rest);
    } else if (cmd == "target") {
      if (rest == "cpu" || rest == "cuda") {
        session.setCUDA(rest == "cuda");
      } else {
        llvm::WithColor::error(llvm::errs(), "tdsl-repl")
            << ":target takes cpu or cuda\n";
      }
    } else if (cmd == "profile") {
      if (rest == "on" || rest == "off")
        session.setProfile(rest == "on");
      else
        llvm::WithColor::error(llvm::errs(), "tdsl-repl")
            << ":profile takes on or off\n";
    } else if (cmd == "reset") {
      session.reset();
    } else if (cmd == "vars") {
      session.listValues();
    } else if (cmd == "forget") {
      if (needArg("a name"))
        session.forget(rest);
    } else if (cmd == "save" || cmd == "load-npy") {
      auto [name, file] = rest.split(' ');
      if (needArg("a name and a file") && !file.trim().empty()) {
        if (cmd == "save")
          session.saveValue(name, file.trim());
        else
          session.loadNpy(name, file.trim());
      } else if (!rest.empty()) {
        llvm::WithColor::error(llvm::errs(), "tdsl-repl")
            << ":" << cmd << " needs a name and a file\n";
      }
    }
    return true;
  }

  std::vector<llvm::LineEditor::Completion> complete(llvm::StringRef buffer,
                                                     size_t pos) {
    size_t start = pos;
    while (start > 0 && (isalnum(buffer[start - 1]) || buffer[start - 1] == '_' ||
                         buffer[start - 1] == ':'))
      --start;
    llvm::StringRef word = buffer.slice(start, pos);
    std::vector<llvm::LineEditor::Completion> out;
    auto offer = [&](llvm::StringRef name) {
      if (name.starts_with(word) && name != word)
        out.emplace_back(name.drop_front(word.size()).str(), name.str());
    };
    if (word.starts_with(":")) {
      for (const Command &c : kCommands)
        offer((":" + llvm::Twine(c.name)).str());
      return out;
    }
    for (const char *k : kKeywords)
      offer(k);
    llvm::StringSet<> builtins;
    for (const BuiltinInfo &b : getBuiltinTable())
      if (builtins.insert(b.name).second)
        offer(b.name);
    for (const std::string &n : session.names())
      offer(n);
    return out;
  }

private:
  Session &session;
  bool interactive;
};

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(replCategory);
  cl::SetVersionPrinter([](llvm::raw_ostream &os) {
    os << "tdsl-repl " TDSL_VERSION " (LLVM/MLIR " LLVM_VERSION_STRING ")\n";
  });
  cl::ParseCommandLineOptions(argc, argv,
                              "tdsl-repl: an interactive TDSL session\n");
  SessionOptions options;
  options.target.optLevel = optLevel;
  options.runtimeDir = getRuntimeLibDir(argv[0]);
  options.includeDirs = includeDirs;
  options.cuda = target == "cuda";
  options.target.gpuBitcode = gpuBitcode;
  if (target != "cpu" && target != "cuda") {
    llvm::WithColor::error(llvm::errs(), "tdsl-repl")
        << "unknown target '" << target << "'\n";
    return 1;
  }
  if (optLevel > 3) {
    llvm::WithColor::error(llvm::errs(), "tdsl-repl")
        << "-O" << optLevel << " is not a level; use -O0 to -O3\n";
    return 1;
  }
  Session session(options);
  bool interactive = llvm::sys::Process::StandardInIsUserInput();
  Repl repl(session, interactive);
  for (const std::string &f : files)
    session.loadFile(f);

  // Ctrl-C stops a running input (its child process), not the session.
  signal(SIGINT, interruptChild);
  // Killed or hung up: the values in shared memory go too.
  signal(SIGTERM, removeStoresAndExit);
  signal(SIGHUP, removeStoresAndExit);

  if (!interactive) {
    std::string line, pending;
    while (std::getline(std::cin, line)) {
      std::optional<std::string> input = takeInput(pending, line);
      if (!input)
        continue;
      if (!repl.handle(*input))
        return 0;
      llvm::outs().flush();
    }
    if (!pending.empty())
      repl.handle(pending);
    return 0;
  }

  llvm::SmallString<256> history;
  if (const char *home = getenv("HOME")) {
    history = home;
    llvm::sys::path::append(history, ".tdsl_history");
  }
  llvm::LineEditor editor("tdsl-repl", history);
  editor.setListCompleter([&](llvm::StringRef buffer, size_t pos) {
    return repl.complete(buffer, pos);
  });
  llvm::outs() << "tdsl-repl " TDSL_VERSION " - :help for commands, Ctrl-D to quit\n";
  llvm::outs().flush();
  std::string pending;
  while (true) {
    editor.setPrompt(pending.empty() ? "tdsl> " : "  ... ");
    std::optional<std::string> line = editor.readLine();
    if (!line) {
      if (!pending.empty()) { // Ctrl-D inside an open bracket drops it
        pending.clear();
        llvm::outs() << "\n";
        continue;
      }
      break;
    }
    std::optional<std::string> input = takeInput(pending, *line);
    if (!input)
      continue;
    if (!repl.handle(*input))
      break;
    llvm::outs().flush();
  }
  editor.saveHistory();
  return 0;
}
