package main

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// argID identifies one command-line option.
type argID int

const (
	argKeyed argID = iota
	argDeriveKey
	argLength
	argSeek
	argNumThreads
	argNoMmap
	argNoNames
	argRaw
	argTag
	argCheck
	argQuiet
	argNoProgress
	argBackend
	argHelp
	argVersion
)

// argDef describes one option the way clap knows it.
type argDef struct {
	id      argID
	long    string
	short   byte // 0 when the option has no short form
	value   string
	usesVal bool
}

// display is the option's name as clap prints it in error messages, e.g.
// "--length <LEN>".
func (d *argDef) display() string {
	if d.usesVal {
		return "--" + d.long + " <" + d.value + ">"
	}
	return "--" + d.long
}

var argDefs = []argDef{
	{id: argKeyed, long: "keyed"},
	{id: argDeriveKey, long: "derive-key", value: "CONTEXT", usesVal: true},
	{id: argLength, long: "length", short: 'l', value: "LEN", usesVal: true},
	{id: argSeek, long: "seek", value: "SEEK", usesVal: true},
	{id: argNumThreads, long: "num-threads", value: "NUM", usesVal: true},
	{id: argNoMmap, long: "no-mmap"},
	{id: argNoNames, long: "no-names"},
	{id: argRaw, long: "raw"},
	{id: argTag, long: "tag"},
	{id: argCheck, long: "check", short: 'c'},
	{id: argQuiet, long: "quiet"},
	{id: argNoProgress, long: "no-progress"},
	{id: argBackend, long: "backend"},
	{id: argHelp, long: "help", short: 'h'},
	{id: argVersion, long: "version", short: 'V'},
}

// conflicts lists the pairs of options that cannot be used together, as in
// b3sum's clap definition.
var conflicts = [][2]argID{
	{argDeriveKey, argKeyed},
	{argCheck, argDeriveKey},
	{argCheck, argKeyed},
	{argCheck, argLength},
	{argCheck, argRaw},
	{argCheck, argTag},
	{argCheck, argNoNames},
}

func lookupLong(name string) *argDef {
	for i := range argDefs {
		if argDefs[i].long == name {
			return &argDefs[i]
		}
	}
	return nil
}

func lookupShort(c byte) *argDef {
	for i := range argDefs {
		if argDefs[i].short != 0 && argDefs[i].short == c {
			return &argDefs[i]
		}
	}
	return nil
}

func lookupID(id argID) *argDef {
	for i := range argDefs {
		if argDefs[i].id == id {
			return &argDefs[i]
		}
	}
	panic("unknown arg id")
}

// action says what main should do after parsing.
type action int

const (
	actionRun action = iota
	actionShortHelp
	actionLongHelp
	actionVersion
	actionBackend // --backend, not in the Rust b3sum: print the backend
)

// options holds the parsed command line.
type options struct {
	files      []string // as given; empty means stdin
	keyed      bool
	deriveKey  bool
	context    string
	length     uint64
	seek       uint64
	numThreads uint64
	threadsSet bool
	noMmap     bool
	noNames    bool
	raw        bool
	tag        bool
	check      bool
	quiet      bool
	noProgress bool
}

// usageError is a command-line error. Like clap, it is reported as
// "error: ..." on stderr with exit status 2.
type usageError struct {
	msg   string // first line(s), without the "error: " prefix
	usage string // usage line to print, empty for none
}

func (e *usageError) Error() string { return e.msg }

// text renders the error the way clap formats it.
func (e *usageError) text() string {
	var b strings.Builder
	b.WriteString("error: ")
	b.WriteString(e.msg)
	b.WriteString("\n\n")
	if e.usage != "" {
		b.WriteString("Usage: ")
		b.WriteString(e.usage)
		b.WriteString("\n\n")
	}
	b.WriteString("For more information, try '--help'.\n")
	return b.String()
}

const defaultUsage = "b3sum [OPTIONS] [FILE]..."

func unexpectedArg(a string) *usageError {
	a = lossyUTF8(a)
	return &usageError{
		msg:   fmt.Sprintf("unexpected argument '%s' found\n\n  tip: to pass '%s' as a value, use '-- %s'", a, a, a),
		usage: defaultUsage,
	}
}

// isFlagLike reports whether clap would treat a token as an option rather
// than as the value of a preceding option.
func isFlagLike(a string) bool {
	return len(a) > 1 && a[0] == '-'
}

// parser is a small re-implementation of the subset of clap's behaviour
// that b3sum 1.8.1 relies on: long options with "=" or a separate value,
// clustered short flags, "-l5"/"-l=5", "--", duplicate detection, and the
// conflicts and requirements between options.
type parser struct {
	opts  options
	seen  map[argID]bool
	order []argID

	// pending is an option still waiting for, or holding an unvalidated,
	// value.
	pending    *argDef
	pendingVal string
	pendingHas bool
}

// parseArgs parses the arguments (without the program name).
//
// Like clap, an option's value is only validated when the option is
// complete: when the next option or positional argument arrives, or at the
// end. A following option is checked for being known (and for a stray
// "=value" on a flag) before that.
func parseArgs(argv []string) (*options, action, error) {
	p := &parser{seen: map[argID]bool{}}
	p.opts.length = 32
	dashdash := false
	for i := 0; i < len(argv); i++ {
		a := argv[i]
		switch {
		case dashdash || !isFlagLike(a):
			if p.pending != nil && !p.pendingHas {
				p.pendingVal, p.pendingHas = a, true
				continue
			}
			if err := p.resolve(); err != nil {
				return nil, 0, err
			}
			p.opts.files = append(p.opts.files, a)
		case a == "--":
			if err := p.resolve(); err != nil {
				return nil, 0, err
			}
			dashdash = true
		case strings.HasPrefix(a, "--"):
			name, val, hasEq := strings.Cut(a[2:], "=")
			d := lookupLong(name)
			if d == nil {
				return nil, 0, unexpectedArg("--" + name)
			}
			if !d.usesVal && hasEq {
				return nil, 0, &usageError{
					msg:   fmt.Sprintf("unexpected value '%s' for '--%s' found; no more were expected", lossyUTF8(val), d.long),
					usage: "b3sum --" + d.long + " [FILE]...",
				}
			}
			if err := p.resolve(); err != nil {
				return nil, 0, err
			}
			if !d.usesVal {
				if act, err := p.setFlag(d, false); act != actionRun || err != nil {
					return nil, act, err
				}
				continue
			}
			p.pending, p.pendingVal, p.pendingHas = d, val, hasEq
			if hasEq { // an attached value is checked at once
				if err := p.resolve(); err != nil {
					return nil, 0, err
				}
			}
		default: // cluster of short options
			for j := 1; j < len(a); j++ {
				d := lookupShort(a[j])
				if d == nil {
					r, _ := utf8.DecodeRuneInString(a[j:])
					return nil, 0, unexpectedArg("-" + string(r))
				}
				if err := p.resolve(); err != nil {
					return nil, 0, err
				}
				if !d.usesVal {
					if act, err := p.setFlag(d, true); act != actionRun || err != nil {
						return nil, act, err
					}
					continue
				}
				p.pending, p.pendingVal, p.pendingHas = d, "", false
				if rest := a[j+1:]; rest != "" {
					// "-l5" or "-l=5": an attached value is checked at once.
					p.pendingVal, p.pendingHas = strings.TrimPrefix(rest, "="), true
					if err := p.resolve(); err != nil {
						return nil, 0, err
					}
				}
				break
			}
		}
	}
	if err := p.resolve(); err != nil {
		return nil, 0, err
	}
	if err := p.validate(); err != nil {
		return nil, 0, err
	}
	return &p.opts, actionRun, nil
}

// resolve completes the pending option, if any: it must have a value, must
// not be a repeat, and the value must parse (checked in that order).
func (p *parser) resolve() error {
	d := p.pending
	if d == nil {
		return nil
	}
	p.pending = nil
	if !p.pendingHas {
		return &usageError{msg: fmt.Sprintf("a value is required for '%s' but none was supplied", d.display())}
	}
	if err := p.mark(d); err != nil {
		return err
	}
	return p.setValue(d, p.pendingVal)
}

// mark records that an option was given, rejecting repeats like clap 4.
func (p *parser) mark(d *argDef) error {
	if p.seen[d.id] {
		return &usageError{
			msg:   fmt.Sprintf("the argument '%s' cannot be used multiple times", d.display()),
			usage: defaultUsage,
		}
	}
	p.seen[d.id] = true
	p.order = append(p.order, d.id)
	return nil
}

// setFlag records a flag. short says whether it was spelled as a short
// option, which for -h selects the short help text.
func (p *parser) setFlag(d *argDef, short bool) (action, error) {
	if err := p.mark(d); err != nil {
		return 0, err
	}
	switch d.id {
	case argHelp:
		if short {
			return actionShortHelp, nil
		}
		return actionLongHelp, nil
	case argVersion:
		return actionVersion, nil
	case argBackend:
		return actionBackend, nil
	case argKeyed:
		p.opts.keyed = true
	case argNoMmap:
		p.opts.noMmap = true
	case argNoNames:
		p.opts.noNames = true
	case argRaw:
		p.opts.raw = true
	case argTag:
		p.opts.tag = true
	case argCheck:
		p.opts.check = true
	case argQuiet:
		p.opts.quiet = true
	case argNoProgress:
		p.opts.noProgress = true
	}
	return actionRun, nil
}

// setValue validates and stores an option's value.
func (p *parser) setValue(d *argDef, val string) error {
	if !utf8.ValidString(val) {
		return &usageError{msg: "invalid UTF-8 was detected in one or more arguments", usage: defaultUsage}
	}
	var err error
	switch d.id {
	case argDeriveKey:
		p.opts.deriveKey = true
		p.opts.context = val
	case argLength:
		p.opts.length, err = parseRustUint(val)
	case argSeek:
		p.opts.seek, err = parseRustUint(val)
	case argNumThreads:
		p.opts.numThreads, err = parseRustUint(val)
		p.opts.threadsSet = true
	}
	if err != nil {
		return &usageError{msg: fmt.Sprintf("invalid value '%s' for '%s': %v", val, d.display(), err)}
	}
	return nil
}

// validate applies clap's conflicts_with and requires rules.
func (p *parser) validate() error {
	for _, a := range p.order {
		var with []string
		for _, b := range p.order {
			if a != b && conflicting(a, b) {
				with = append(with, lookupID(b).display())
			}
		}
		if len(with) == 0 {
			continue
		}
		da := lookupID(a)
		msg := fmt.Sprintf("the argument '%s' cannot be used with '%s'", da.display(), with[0])
		if len(with) > 1 {
			msg = fmt.Sprintf("the argument '%s' cannot be used with:\n  %s", da.display(), strings.Join(with, "\n  "))
		}
		return &usageError{msg: msg, usage: "b3sum " + da.display() + " <FILE>..."}
	}
	// clap waives a requirement when an argument conflicting with the
	// required one is present: "--quiet --tag" is accepted.
	if p.opts.quiet && !p.opts.check && !p.anyConflictsWith(argCheck) {
		return &usageError{
			msg:   "the following required arguments were not provided:\n  --check",
			usage: "b3sum --check --quiet <FILE>...",
		}
	}
	if p.opts.keyed && len(p.opts.files) == 0 {
		return &usageError{
			msg:   "the following required arguments were not provided:\n  <FILE>...",
			usage: "b3sum --keyed <FILE>...",
		}
	}
	return nil
}

// anyConflictsWith reports whether an option that was given conflicts
// with id.
func (p *parser) anyConflictsWith(id argID) bool {
	for _, a := range p.order {
		if conflicting(a, id) {
			return true
		}
	}
	return false
}

func conflicting(a, b argID) bool {
	for _, c := range conflicts {
		if (c[0] == a && c[1] == b) || (c[0] == b && c[1] == a) {
			return true
		}
	}
	return false
}

// parseRustUint parses an unsigned 64-bit integer with the same accepted
// syntax and error messages as Rust's u64::from_str (an optional leading
// '+', decimal digits only).
func parseRustUint(s string) (uint64, error) {
	if s == "" {
		return 0, fmt.Errorf("cannot parse integer from empty string")
	}
	digits := s
	if digits[0] == '+' || digits[0] == '-' {
		if len(digits) == 1 || digits[0] == '-' {
			return 0, fmt.Errorf("invalid digit found in string")
		}
		digits = digits[1:]
	}
	var n uint64
	for i := 0; i < len(digits); i++ {
		c := digits[i]
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("invalid digit found in string")
		}
		d := uint64(c - '0')
		if n > (1<<64-1-d)/10 {
			return 0, fmt.Errorf("number too large to fit in target type")
		}
		n = n*10 + d
	}
	return n, nil
}
