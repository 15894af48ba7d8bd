linkemu_LDLIBS := -lpthread -lm
