enum SwitchboardStorePlaceholder {}
