package ui

import (
	"image/color"

	"charm.land/lipgloss/v2"
)

// Theme selects a palette.
type Theme string

// Themes.
const (
	ThemeDark  Theme = "dark"
	ThemeLight Theme = "light"
)

// Styles are the looks of the screen, as data. With NO_COLOR every style
// is plain: the screen stays readable because meaning is also spelled out
// in text (CRIT/WARN, QP states, the ▶ cursor).
type Styles struct {
	Title, Header, Dim, Label   lipgloss.Style
	TabActive, TabInactive      lipgloss.Style
	Critical, Warning, Info, OK lipgloss.Style
	Selected                    lipgloss.Style
	ColumnHeader                lipgloss.Style
	Help                        lipgloss.Style
	Spark                       lipgloss.Style
}

// NewStyles returns the styles of a theme; noColor returns plain styles.
func NewStyles(theme Theme, noColor bool) Styles {
	if noColor {
		p := lipgloss.NewStyle()
		return Styles{Title: p, Header: p, Dim: p, Label: p, TabActive: p, TabInactive: p,
			Critical: p, Warning: p, Info: p, OK: p, Selected: p, ColumnHeader: p, Help: p, Spark: p}
	}
	ld := lipgloss.LightDark(theme != ThemeLight)
	c := func(light, dark string) color.Color { return ld(lipgloss.Color(light), lipgloss.Color(dark)) }
	fg := func(light, dark string) lipgloss.Style { return lipgloss.NewStyle().Foreground(c(light, dark)) }
	return Styles{
		Title:        fg("#005f87", "#5fd7ff").Bold(true),
		Header:       fg("#303030", "#d0d0d0"),
		Dim:          fg("#808080", "#6c6c6c"),
		Label:        fg("#5f5f87", "#8787af"),
		TabActive:    lipgloss.NewStyle().Bold(true).Foreground(c("#ffffff", "#000000")).Background(c("#005f87", "#5fd7ff")),
		TabInactive:  fg("#5f5f5f", "#9e9e9e"),
		Critical:     fg("#d70000", "#ff5f5f").Bold(true),
		Warning:      fg("#af5f00", "#ffd75f"),
		Info:         fg("#005faf", "#87afff"),
		OK:           fg("#008700", "#87d787"),
		Selected:     lipgloss.NewStyle().Reverse(true),
		ColumnHeader: fg("#303030", "#e4e4e4").Bold(true).Underline(true),
		Help:         fg("#6c6c6c", "#808080"),
		Spark:        fg("#0087af", "#5fafd7"),
	}
}
