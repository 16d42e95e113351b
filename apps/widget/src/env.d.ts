declare const __KB_WIDGET_VERSION__: string;
