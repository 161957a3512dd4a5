package ui

import "charm.land/bubbles/v2/key"

// KeyMap is every binding of the screen, as data (callers may rebind).
type KeyMap struct {
	Quit, Help                               key.Binding
	View1, View2, View3, View4, View5, View6 key.Binding
	NextView, PrevView                       key.Binding
	Up, Down, PageUp, PageDown               key.Binding
	Enter, Back                              key.Binding
	Left, Right                              key.Binding // detail: scroll sideways
	Findings                                 key.Binding
	Sort, SortOrder, Filter                  key.Binding
	Pause                                    key.Binding
	Slower, Faster                           key.Binding // refresh interval + / −
	StepBack, StepForward                    key.Binding // replay
	SpeedDown, SpeedUp                       key.Binding // replay
	Start, End                               key.Binding // replay
	Began                                    key.Binding // replay: to when the selected finding began
	PrevPort, NextPort                       key.Binding
	Severity                                 key.Binding // events: cycle the severity filter
}

// DefaultKeyMap is rdmatop's key map.
func DefaultKeyMap() KeyMap {
	b := func(help, desc string, keys ...string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
	}
	return KeyMap{
		Quit:        b("q", "quit", "q", "ctrl+c"),
		Help:        b("?", "help", "?"),
		View1:       b("1", "overview", "1"),
		View2:       b("2", "QPs", "2"),
		View3:       b("3", "flows", "3"),
		View4:       b("4", "events", "4"),
		View5:       b("5", "counters", "5"),
		View6:       b("6", "config", "6"),
		NextView:    b("tab", "next view", "tab"),
		PrevView:    b("shift+tab", "previous view", "shift+tab"),
		Up:          b("↑/k", "up", "up", "k"),
		Down:        b("↓/j", "down", "down", "j"),
		PageUp:      b("pgup", "page up", "pgup"),
		PageDown:    b("pgdn", "page down", "pgdown"),
		Enter:       b("enter", "details", "enter"),
		Back:        b("esc", "back", "esc"),
		Left:        b("←/→", "scroll a detail sideways", "left"),
		Right:       b("→", "scroll a detail right", "right"),
		Findings:    b("f", "focus findings", "f"),
		Sort:        b("s", "sort column", "s"),
		SortOrder:   b("S", "sort order", "S"),
		Filter:      b("/", "filter", "/"),
		Pause:       b("p/space", "pause", "p", "space"),
		Slower:      b("+", "longer interval", "+", "="),
		Faster:      b("-", "shorter interval", "-"),
		StepBack:    b("←", "step back (replay)", "left"),
		StepForward: b("→", "step forward (replay)", "right"),
		SpeedDown:   b("<", "slower (replay)", "<"),
		SpeedUp:     b(">", "faster (replay)", ">"),
		Start:       b("g", "start (replay)", "g"),
		End:         b("G", "end (replay)", "G"),
		Began:       b("t", "to when the finding began (replay)", "t"),
		PrevPort:    b("[", "previous port", "["),
		NextPort:    b("]", "next port", "]"),
		Severity:    b("v", "severity filter (events)", "v"),
	}
}

// ShortHelp is the bottom line.
func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Quit, k.Help, k.NextView, k.Enter, k.Sort, k.Filter, k.Pause, k.Findings}
}

// FullHelp is the ? screen (Left stands for Right too: "←/→").
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.View1, k.View2, k.View3, k.View4, k.View5, k.View6, k.NextView, k.PrevView},
		{k.Up, k.Down, k.PageUp, k.PageDown, k.Enter, k.Back, k.Left, k.Findings, k.PrevPort, k.NextPort},
		{k.Sort, k.SortOrder, k.Filter, k.Severity, k.Pause, k.Slower, k.Faster},
		{k.StepBack, k.StepForward, k.SpeedDown, k.SpeedUp, k.Start, k.End, k.Began, k.Help, k.Quit},
	}
}
