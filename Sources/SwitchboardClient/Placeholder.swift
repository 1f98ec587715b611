enum SwitchboardClientPlaceholder {}
