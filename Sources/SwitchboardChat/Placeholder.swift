public enum SwitchboardChatPlaceholder {}
